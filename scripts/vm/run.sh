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
ktree=$build/kernel
[ -z "${IXT_KERNEL_DIR:-}" ] || ktree=$(realpath "$IXT_KERNEL_DIR")
kver=$(cat "$ktree/KVER")
kernel=$ktree/boot/vmlinuz-$kver
initrd=$build/vm/initramfs${IXT_KERNEL_DIR:+-$kver}.cpio.gz
# -d: SLUB's red zones, poisoning, checks and allocation traces, KFENCE,
# memory cleared when freed. A KASAN kernel checks every access with red
# zones and a quarantine of its own: SLUB keeps only its traces there
# (alloc_fail.sh and tcp_session_memory.sh read them), a KASAN kernel
# under TCG being slow enough. It also boots with four-level page tables
# (no5lvl; QEMU's "max" CPU has LA57): with five, an interrupt that came
# before the boot CPU was identified met a KASAN shadow check that took
# a direct-map address for a wild one ("BUG: KASAN: wild-memory-access
# in do_raw_spin_lock", from handle_edge_irq), which turned lockdep off
# for the whole boot. And KASAN reports every bad access, not only the
# boot's first (kasan_multi_shot): one test's report must not hide the
# next test's.
if [ -n "$debug" ]; then
	if grep -qx CONFIG_KASAN=y "$ktree/boot/config-$kver" 2>/dev/null; then
		debug="slub_debug=U kfence.sample_interval=10 no5lvl kasan_multi_shot"
	else
		debug="slub_debug=FZPU kfence.sample_interval=10 init_on_free=1"
	fi
fi
out=$build/vm/$name

"$top/scripts/vm/mkinitramfs.sh" "$ktree" "$initrd"

rm -rf "$out"
mkdir -p "$out"
{
	echo "export IXT_TOP=$(printf %q "$top") IXT_OUT=$(printf %q "$out")"
	echo "export IXT_BUILD=$(printf %q "$build") IXT_KVER=$(printf %q "$kver")"
	echo "export IXT_RDMA=$(printf %q "${IXT_RDMA:-rxe}")"
	echo "export IXT_ALLOC_FULL=$(printf %q "${IXT_ALLOC_FULL:-}")" \
		"IXT_ALLOC_OWNED=$(printf %q "${IXT_ALLOC_OWNED:-}")"
	echo "export IXT_KSFT_TIMEOUT=$(printf %q "${IXT_KSFT_TIMEOUT:-}")" \
		"IXT_SOAK_SECONDS=$(printf %q "${IXT_SOAK_SECONDS:-}")" \
		"IXT_SOAK_SEED=$(printf %q "${IXT_SOAK_SEED:-}")" \
		"IXT_SOAK_KINDS=$(printf %q "${IXT_SOAK_KINDS:-}")"
	echo "export IXT_TRANSPORTS=$(printf %q "${IXT_TRANSPORTS:-}")" \
		"IXT_MUTATE_SECONDS=$(printf %q "${IXT_MUTATE_SECONDS:-}")" \
		"IXT_MUTATE_SEED=$(printf %q "${IXT_MUTATE_SEED:-}")" \
		"IXT_MUTATE_ARGS=$(printf %q "${IXT_MUTATE_ARGS:-}")"
	echo "export IXT_STATEFUZZ_SECONDS=$(printf %q "${IXT_STATEFUZZ_SECONDS:-}")" \
		"IXT_STATEFUZZ_SEED=$(printf %q "${IXT_STATEFUZZ_SEED:-}")" \
		"IXT_STATEFUZZ_ARGS=$(printf %q "${IXT_STATEFUZZ_ARGS:-}")"
	[ -z "${IXT_KERNEL_DIR:-}" ] ||
		echo "export IXT_KERNEL_DIR=$(printf %q "$ktree")"
	[ -z "${IXT_SLOW:-}" ] ||
		echo "export IXT_SLOW=$(printf %q "$IXT_SLOW")"
	[ -z "${IXT_KO:-}" ] ||
		echo "export IXT_KO=$(printf %q "$(realpath "$IXT_KO")")"
	echo "cd \"\$IXT_TOP\""
	printf 'exec %q' "$script"
	printf ' %q' "$@"
	echo
} >"$out/job.sh"
: >"$out/output.log"

cmdline="console=ttyS0 loglevel=5 log_buf_len=4M panic=-1 ixt.out=$out"
cmdline+=" ixt.run=$top/scripts/vm/guest-run.sh $debug"

# boot: one run of the VM; sets timed_out when it was killed.
boot() {
	local qemu tailer start

	qemu-system-x86_64 \
		-machine q35 -cpu max -smp 2 -m "$mem" \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=hostout,path="$out",security_model=none \
		-device virtio-9p-pci,fsdev=hostout,mount_tag=hostout \
		-display none -monitor none -serial "file:$out/console.log" \
		-nic none -no-reboot &
	qemu=$!

	tail -n +1 -F "$out/output.log" --pid=$qemu 2>/dev/null &
	tailer=$!

	start=$SECONDS
	timed_out=
	while kill -0 $qemu 2>/dev/null; do
		if [ $((SECONDS - start)) -ge "$timeout" ]; then
			timed_out=1
			kill $qemu 2>/dev/null || true
			break
		fi
		sleep 1
	done
	wait $qemu 2>/dev/null || true
	sleep 1
	kill $tailer 2>/dev/null || true
	wait $tailer 2>/dev/null || true
}

start=$SECONDS
boot
# Under TCG the guest kernel rarely dies while it boots (an int3 Oops in
# code being patched, before any module of ours is loaded): one more
# boot, the first console log kept. A death after the job started is
# the test's and is reported as it is.
if [ -z "$timed_out" ] && [ ! -e "$out/started" ]; then
	echo "vm: $name: the kernel died before the job started; booting again (first console log: $out/console-boot1.log)" >&2
	tail -n 40 "$out/console.log" >&2
	mv "$out/console.log" "$out/console-boot1.log"
	boot
fi

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
