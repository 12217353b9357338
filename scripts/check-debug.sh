#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: every kselftest on the debug kernel (KASAN, lockdep,
# KFENCE, DEBUG_OBJECTS, kmemleak, UBSAN: scripts/debug-kernel.sh), with
# the modules built against it. Ends with "N passed, N failed".
#
#   scripts/check-debug.sh [BUILD_DIR [TEST...]]
#
# With IXT_DEBUG_PART=K/N and no TEST, only the Kth of N parts of every
# kselftest (TEST_PROGS), dealt by their seconds as scripts/vm/ksft-deal
# deals boots, its boots and log named kselftest-debug-pK: make
# check-full runs the parts as steps of their own, which IXT_CHECK_RESUME
# keeps, since the whole outlasts a session here.
#
# - the debug kernel, built once per machine (make debug-kernel; about
#   16 to 32 minutes the first time, nothing afterwards);
# - iscsi_xt and iscsi_xt_iser built against it with fault injection, in
#   a copy of the sources under BUILD_DIR/debug-kernel/module (the
#   repository's own objects stay those of Debian's kernel, which make
#   check's VMs load);
# - the kselftests (all, or the TESTs named) in IXT_DEBUG_VMS (3) boots
#   of that kernel at once, two vCPUs each (IXT_VM_SMP: make check's have
#   one) (build/vm/kselftest-debug-N), every test's
#   timeout IXT_DEBUG_TIMEOUT (3600 s: the kernel runs several times
#   slower under TCG; iser_data.sh and tcp_data.sh outlasted 1800 s in
#   three boots beside other work), each boot bounded by
#   IXT_DEBUG_VM_TIMEOUT (18000 s: a boot of the whole run holds some
#   2300 s of tests on Debian's kernel, by ksft-seconds, 3.2 h on this
#   one), IXT_SLOW=5 (the tests that hold a command for a time hold it five
#   times as long: the kernel runs about that much slower than Debian's
#   under TCG); each test's "kernel log clean" subtest fails on KASAN's, lockdep's,
#   DEBUG_OBJECTS', KFENCE's and UBSAN's reports and on what a kmemleak
#   scan finds after it (lib.sh);
# - then one more check, "no report in the debug boots": the boots'
#   serial console logs hold no such report (also none logged between
#   tests or while a boot shut down), and kmemleak's last scan in each
#   boot (kmemleak.log) found nothing.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$top/build}")
shift $(($# > 0 ? 1 : 0))
name=kselftest-debug
mod=$build/debug-kernel/module
col=$top/tools/testing/selftests/drivers/target/iscsi_xt

if [ $# -eq 0 ] && [ -n "${IXT_DEBUG_PART:-}" ]; then
	part=${IXT_DEBUG_PART%/*}
	parts=${IXT_DEBUG_PART#*/}
	name=kselftest-debug-p$part
	mapfile -t mine < <(sed -n '/^TEST_PROGS :=/,/[^\\]$/p' "$col/Makefile" |
		sed 's/^TEST_PROGS :=//; s/\\$//' | xargs -n 1 |
		xargs "$top/scripts/vm/ksft-deal" "$parts" |
		awk -v k="$part" '$1 == k { print $2 }')
	[ "${#mine[@]}" -gt 0 ] ||
		{ echo "check-debug: part $IXT_DEBUG_PART has no test" >&2; exit 2; }
	set -- "${mine[@]}"
fi

log() {
	echo "check-debug: $*" >&2
}

dk=$("$top/scripts/debug-kernel.sh" "$build")
kver=$(cat "$dk/KVER")
log "kernel $kver in $dk"

# The sources only: what the Kbuild files name.
start=$SECONDS
rm -rf "$mod"
mkdir -p "$mod/drivers/target"
cp -a "$top/Kbuild" "$top/VERSION" "$top/include" "$mod/"
cp -a "$top/drivers/target/iscsi_xt" "$mod/drivers/target/"
find "$mod" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name modules.order -o -name Module.symvers \) -delete
log "building the modules against it ..."
make -s -C "$dk/lib/modules/$kver/build" M="$mod" IXT_FAULT_INJECT=1 modules
log "modules built in $((SECONDS - start))s"

# The boots of an earlier run would count in the check of the consoles
# below.
rm -rf "$build/vm/$name" "$build/vm/$name"-[0-9]*

rc=0
IXT_VM_SMP=${IXT_VM_SMP:-2} IXT_KERNEL_DIR=$dk IXT_SLOW=5 \
	IXT_KO=$mod/drivers/target/iscsi_xt/iscsi_xt.ko \
	IXT_KSFT_NAME=$name IXT_KSFT_VMS=${IXT_DEBUG_VMS:-3} \
	IXT_KSFT_TIMEOUT=${IXT_DEBUG_TIMEOUT:-3600} \
	IXT_KSFT_VM_TIMEOUT=${IXT_DEBUG_VM_TIMEOUT:-18000} \
	"$top/scripts/kselftest.sh" "$build" "$@" | tee "$build/$name.log" ||
	rc=$?
read -r pass fail skip < <(grep -E '^[0-9]+ passed, [0-9]+ failed' "$build/$name.log" |
	tail -n 1 | sed -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 \2 \3/')
: "${pass:=0}" "${fail:=1}" "${skip:=0}"

# What the serial consoles caught, tests or no tests: what lib.sh's
# kernel-log check fails on (every BUG and WARNING: KASAN's, lockdep's,
# DEBUG_OBJECTS' and DEBUG_ATOMIC_SLEEP's reports among them), but for
# the initiator side's workqueue flush warning it leaves out too.
reports='BUG[: ]|WARNING:|Oops|KFENCE: |UBSAN: |general protection fault|INFO: task .* blocked for more than|INFO: trying to register non-static key|list_(add|del) corruption|list corruption|Kernel panic'
found=
for d in "$build/vm/$name" "$build/vm/$name"-[0-9]*; do
	[ -d "$d" ] || continue
	hits=$(grep -aE "$reports" "$d/console.log" 2>/dev/null |
		grep -v 'check_flush_dependency' | head -n 20 || true)
	[ -z "$hits" ] || { found=1; log "${d##*/}: console.log:"; echo "$hits" >&2; }
	if [ -s "$d/kmemleak.log" ]; then
		found=1
		log "${d##*/}: kmemleak's last scan:"
		head -n 40 "$d/kmemleak.log" >&2
	fi
done
if [ -n "$found" ]; then
	log "not ok: a report in the debug boots"
	fail=$((fail + 1))
else
	log "ok: no report in the debug boots"
	pass=$((pass + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
