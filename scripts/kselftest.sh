#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the iscsi_xt kselftests the kselftest way (lib.mk from the 6.12
# source, run_kselftest.sh, kselftest-list.txt) and run them in one VM
# boot with the kernel's cheap debug options on.
#
#   scripts/kselftest.sh [BUILD_DIR [TEST...]]
#
# TEST names one test program (e.g. module_load.sh) to run alone; by
# default all run but those IXT_KSFT_SKIP names (a space-separated list).
# With IXT_RDMA=siw the VM has soft-iWARP siw0 on veth0 in place of
# soft-RoCE rxe0 (results in build/vm/kselftest-siw); IXT_KSFT_NAME names
# the results folder instead (build/vm/NAME).
#
# Ends with "N passed, N failed, N skipped" (one per test program) and
# exits non-zero when any test failed or the VM did not finish.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
shift $(($# > 0 ? 1 : 0))
col=drivers/target/iscsi_xt
ksft=$build/ksft
src=$ksft/src/tools/testing/selftests
inst=$ksft/install

rm -rf "$ksft"
mkdir -p "$src/$col" "$inst"
cp -r "$build/tools/tools/testing/selftests/"{lib.mk,kselftest,run_kselftest.sh} "$src/"
cp -r "$top/tools/testing/selftests/$col/." "$src/$col/"
make -s -C "$src/$col" install INSTALL_PATH="$inst/$col" OUTPUT="$ksft/out"
make -s -C "$src/$col" emit_tests COLLECTION="$col" OUTPUT="$ksft/out" \
	| grep "^$col:" >"$inst/kselftest-list.txt"
cp -r "$src/kselftest" "$src/run_kselftest.sh" "$inst/"
if [ $# -eq 0 ] && [ -n "${IXT_KSFT_SKIP:-}" ]; then
	mapfile -t tests < <(sed "s|^$col:||" "$inst/kselftest-list.txt" |
		grep -vxF -f <(tr ' ' '\n' <<<"$IXT_KSFT_SKIP" | grep .))
	set -- "${tests[@]}"
fi

rc=0
name=${IXT_KSFT_NAME:-kselftest${IXT_RDMA:+-$IXT_RDMA}}
IXT_BUILD=$build "$top/scripts/vm/run.sh" -d -t 1800 -n "$name" \
	"$top/scripts/vm/kselftest-guest.sh" "$inst" "${@/#/$col:}" || rc=$?

log=$build/vm/$name/output.log
pass=$(grep -E '^ok [0-9]+ selftests: ' "$log" | grep -vc '# SKIP' || true)
skip=$(grep -E '^ok [0-9]+ selftests: ' "$log" | grep -c '# SKIP' || true)
fail=$(grep -cE '^not ok [0-9]+ selftests: ' "$log" || true)
total=$(if [ $# -gt 0 ]; then echo $#; else wc -l <"$inst/kselftest-list.txt"; fi)
if [ $((pass + skip + fail)) -ne "$total" ]; then
	echo "kselftest: $((pass + skip + fail)) of $total tests reported (VM status $rc)"
	fail=$((total - pass - skip))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
