#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the Debian 6.12 kernel under QEMU with the host's root file system
# (read-only 9p + tmpfs overlay) and run one script in it.
#
#   scripts/vm/run.sh [-d] [-t SECONDS] [-m MEM] [-n NAME] SCRIPT [ARGS...]
#
#   -d          boot with the cheap debug options (SLUB debugging, KFENCE,
#               init_on_free), as make check does
#   -t SECONDS  kill the VM after this long (default 1200)
#   -m MEM      guest memory (default $IXT_VM_MEM, else 4G)
#   (vCPUs: $IXT_VM_SMP, else 2)
#   -n NAME     results folder name (default: the script's base name)
#
# SCRIPT runs as root in the guest with the repository as working
# directory and IXT_OUT naming a folder shared with the host: whatever it
# writes there appears in build/vm/NAME/ on the host, next to the job's
# output (output.log), the guest's kernel log (dmesg.log) and the serial
# console log (console.log). The exit status is the script's. IXT_RDMA
# (rxe, the default, or siw) picks the guest's RDMA device on veth0;
# IXT_ALLOC_FULL=1 makes alloc_fail.sh fail every allocation in turn,
# IXT_ALLOC_OWNED=1 count the objects left after each of its runs (slow);
# IXT_TRANSPORTS ("tcp iser" by default), IXT_MUTATE_SECONDS,
# IXT_MUTATE_SEED and IXT_MUTATE_ARGS reach the tests that read them
# (mutate.sh), and so do IXT_STATEFUZZ_SECONDS, IXT_STATEFUZZ_SEED and
# IXT_STATEFUZZ_ARGS (statefuzz.sh).
#
# IXT_KERNEL_DIR boots another kernel tree laid out like build/kernel
# (KVER, boot/vmlinuz-KVER, lib/modules/KVER/), such as the debug kernel
# scripts/debug-kernel.sh installs; its initramfs is initramfs-KVER.cpio.gz
# and the guest binds its module tree (scripts/vm/guest-env.sh). IXT_KO
# names the iscsi_xt.ko the tests load (iscsi_xt_iser.ko beside it), the
# repository's own by default: make check-debug's, built against the
# debug kernel, lives under build/. IXT_SLOW tells the tests how many
# times slower that kernel runs (lib.sh).

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${IXT_BUILD:-$top/build}
debug=
timeout=1200
mem=${IXT_VM_MEM:-4G}
smp=${IXT_VM_SMP:-2}
name=

while getopts "dt:m:n:" opt; do
	case "$opt" in
	d)	debug=1 ;;
	t)	timeout=$OPTARG ;;
	m)	mem=$OPTARG ;;
	n)	name=$OPTARG ;;
	*)	exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-d] [-t S] [-m MEM] [-n NAME] SCRIPT [ARGS...]" >&2; exit 2; }

script=$(realpath "$1")
shift
name=${name:-$(basename "$script" .sh)}
out=$build/vm/$name

. "$top/scripts/vm/qemu-lib.sh"
ixt_vm_kernel "$debug"
rm -rf "$out"
mkdir -p "$out"
ixt_vm_job "$out" "" "$script" "$@"

start=$SECONDS
ixt_vm_run "$out" "$name" "$smp" "$mem" "$timeout" ""

if [ -n "$timed_out" ]; then
	echo "vm: $name timed out after ${timeout}s and was killed; console log: $out/console.log" >&2
	tail -n 30 "$out/console.log" >&2
	exit 124
fi
if [ ! -s "$out/status" ]; then
	echo "vm: $name ended without an exit status (crash or panic?); console log: $out/console.log" >&2
	tail -n 40 "$out/console.log" >&2
	exit 125
fi
rc=$(cat "$out/status")
echo "vm: $name exited with status $rc after $((SECONDS - start))s (logs in $out)" >&2
exit "$rc"
