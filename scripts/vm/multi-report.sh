#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The end of a test on scripts/vm/multi.sh (multi-smoke.sh, mpath.sh): a
# line for the end of each VM of each run, then "N passed, N failed" over
# the VMs' "ok N - ..." and "not ok N - ..." lines and their ends; the
# exit status is 1 when one failed.
#
#   scripts/vm/multi-report.sh "ROLE..." RUN_DIR...

set -euo pipefail

roles=$1
shift
pass=0
fail=0
for run; do
	# A VM powered off and on again kept its earlier boots' output in
	# ROLE/bootN/.
	logs=$(find "$run" -mindepth 2 -maxdepth 3 -name output.log)
	# shellcheck disable=SC2086 # paths without blanks: multi.sh's
	pass=$((pass + $(cat $logs | grep -c '^ok ' || true)))
	# shellcheck disable=SC2086
	fail=$((fail + $(cat $logs | grep -c '^not ok ' || true)))
	for role in $roles; do
		if [ "$(cat "$run/$role/status" 2>/dev/null)" = 0 ]; then
			echo "ok - ${run##*/} $role: the VM's job ended with status 0"
			pass=$((pass + 1))
		else
			echo "not ok - ${run##*/} $role: the VM's job did not end with status 0"
			fail=$((fail + 1))
		fi
	done
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
