#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The end of a test on scripts/vm/multi.sh (multi-smoke.sh, mpath.sh): a
# line for each VM's end, then "N passed, N failed" over the VMs' "ok N -
# ..." and "not ok N - ..." lines and their ends; the exit status is 1
# when one failed.
#
#   scripts/vm/multi-report.sh RUN_DIR ROLE...

set -euo pipefail

run=$1
shift
pass=$(cat "$run"/*/output.log | grep -c '^ok ') || true
fail=$(cat "$run"/*/output.log | grep -c '^not ok ') || true
for role; do
	if [ "$(cat "$run/$role/status" 2>/dev/null)" = 0 ]; then
		echo "ok - $role: the VM's job ended with status 0"
		pass=$((pass + 1))
	else
		echo "not ok - $role: the VM's job did not end with status 0"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
