#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: set up, build the modules (without fault injection: the
# soak's faults are real ones) and run the soak kselftest (soak.sh) for
# DURATION seconds in one VM boot, then print its verdict and where its
# samples are.
#
#   scripts/soak.sh [DURATION]     (default 600; IXT_SOAK_SEED=N repeats
#                                   a run's faults and gaps,
#                                   IXT_SOAK_KINDS="K..." deals only the
#                                   fault kinds K)
#
# The results are in build/vm/soak/: output.log (the KTAP verdict),
# soak.tsv (the samples), faults.log (each fault with its time),
# summary.txt, dmesg.log. Exits non-zero unless the verdict is a pass.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
duration=${1:-600}
out=$build/vm/soak

case $duration in
''|*[!0-9]*) echo "soak: DURATION=$duration: seconds expected" >&2; exit 2 ;;
esac
t0=$SECONDS
"$top/scripts/setup.sh" "$build"
make -s -C "$top" modules IXT_FAULT_INJECT=
rc=0
# 2 GiB are plenty (the soak's own use is some 600 MiB), and a QEMU that
# has run for an hour is the largest process of a host that runs other
# VMs besides: when memory runs short there, the kernel kills it first
# (seen once, half an hour into an hour's soak, with 4 GiB).
export IXT_VM_MEM=${IXT_VM_MEM:-2G}
# Set-up, warm-up and the verdict take some 20 minutes at most in the
# VM besides the faults' DURATION.
IXT_SOAK_SECONDS=$duration IXT_KSFT_NAME=soak \
	IXT_KSFT_TIMEOUT=$((duration + 1200)) \
	"$top/scripts/kselftest.sh" "$build" soak.sh || rc=$?

echo
echo "soak: verdict ($((SECONDS - t0)) s end to end):"
grep -E '^# (not )?ok [0-9]+ ' "$out/output.log" 2>/dev/null | sed 's/^# /  /' || true
[ -s "$out/summary.txt" ] && { echo; fold -s -w 78 "$out/summary.txt"; }
echo
echo "soak: samples in $out/soak.tsv, faults in $out/faults.log, kernel log in $out/dmesg.log"
if [ "$rc" -eq 0 ]; then
	echo "soak: PASS"
else
	echo "soak: FAIL"
fi
exit "$rc"
