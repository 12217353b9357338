#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs the unit-test binaries named as arguments, shows their TAP output,
# and ends with one combined line "N passed, N failed". Each binary's own
# summary line becomes a "# name: ..." comment, so that only the combined
# line has that form. A binary that crashes, or exits non-zero with no
# failed test, counts one more failure. Exits non-zero on any failure.

passed=0
failed=0
for bin in "$@"; do
	name=${bin##*/}
	log=$bin.log
	echo "# $name"
	"$bin" >"$log" 2>&1
	rc=$?
	sed -E "s/^([0-9]+ passed, [0-9]+ failed)\$/# $name: \\1/" "$log"
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	if ! tail -n 1 "$log" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$' ||
	   { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
		echo "# $name: exited with status $rc before its summary"
		f=$((f + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
