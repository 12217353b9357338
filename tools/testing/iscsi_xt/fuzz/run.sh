#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh BUILD_DIR SECONDS FUZZER...
#
# Runs each libFuzzer binary, one after the other and in one process
# each, for SECONDS seconds, from the seeds in corpus/<target> next to
# this script (read only) and the corpus of earlier runs in
# BUILD_DIR/corpus/<target>, where new inputs go. Prints TAP, one line a
# target with its runs and coverage, and ends with one line
# "N passed, N failed". A target that crashes, or finds a leak, a
# timeout or an out-of-memory, fails: its reproducer stays in
# BUILD_DIR/crashes/<target>/ and its log in BUILD_DIR/<target>.log.
# Exits non-zero on any failure.

build=$1
secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

passed=0
failed=0
n=0
echo "TAP version 13"
echo "1..$#"
for bin in "$@"; do
	name=${bin##*/}
	name=${name%_fuzz}
	n=$((n + 1))
	corpus=$build/corpus/$name
	crashes=$build/crashes/$name
	log=$build/$name.log
	mkdir -p "$corpus" "$crashes"
	"$bin" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2048 \
		-max_len=8192 -print_final_stats=1 \
		-artifact_prefix="$crashes/" \
		"$corpus" "$here/corpus/$name" >"$log" 2>&1
	rc=$?
	done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(echo "$done_line" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, ft \2, corpus \3/p')
	if [ "$rc" -eq 0 ] && [ -n "$done_line" ]; then
		passed=$((passed + 1))
		echo "ok $n - $name: ${runs:-?} runs in ${secs} s, ${cov:-no coverage line}"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name: exit status $rc"
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*: check failed|#   )' "$log" |
			head -n 8 | sed 's/^/# /'
		unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" |
			tail -n 1)
		echo "# reproducer: ${unit:-none written}; log: $log"
		[ -n "$unit" ] && echo "# replay: $bin $unit"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
