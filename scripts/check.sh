#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: setup, then every test layer; each step's log is kept in
# build/check/. With IXT_CHECK_FULL set (make check-full), also the slow
# tests that make check leaves out. Steps that print "N passed, N failed" count their tests,
# the others count as one. Ends with one line "N passed, N failed".
#
# A step that passes on a committed tree (no change that git sees) leaves
# build/check/STEP.ok naming the commit. With IXT_CHECK_RESUME set, a step
# whose STEP.ok names the commit checked out now is not run again: its
# kept log counts as it did (check-full outlasts the reference machine's
# sessions, so that it can be finished at one commit in two runs).

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}
logs=$build/check
pass=0
fail=0
skip=0

# The commit checked out, when git sees no change to it; empty otherwise.
commit=$(cd "$top" && [ -z "$(git status --porcelain 2>/dev/null)" ] &&
	git rev-parse HEAD 2>/dev/null) || commit=

step() {
	local name=$1 start=$SECONDS rc summary p f s

	shift
	echo "=== $name"
	if [ -n "${IXT_CHECK_RESUME:-}" ] && [ -n "$commit" ] &&
	   [ "$(cat "$logs/$name.ok" 2>/dev/null)" = "$commit" ]; then
		echo "=== $name: passed at $commit before; not run again (IXT_CHECK_RESUME)"
		rc=0
	else
		rm -f "$logs/$name.ok"
		"$@" 2>&1 | tee "$logs/$name.log"
		rc=${PIPESTATUS[0]}
		[ "$rc" -ne 0 ] || [ -z "$commit" ] || echo "$commit" >"$logs/$name.ok"
	fi
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/$name.log" | tail -n 1)
	if [ -n "$summary" ]; then
		read -r p f s < <(sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\1 \2 \4/' <<<"$summary")
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	elif [ "$rc" -eq 0 ]; then
		p=1 f=0
	else
		p=0 f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + ${s:-0}))
	echo "=== $name: $([ "$rc" -eq 0 ] && echo ok || echo FAILED) ($((SECONDS - start))s)"
	return "$rc"
}

mkdir -p "$logs"
if ! step setup "$top/scripts/setup.sh" "$build"; then
	echo "$pass passed, $((fail)) failed"
	exit 1
fi
step build-check make -s -C "$top" build-check
step checkpatch make -s -C "$top" checkpatch
step kernel-doc make -s -C "$top" kdoc
step unit make -s -C "$top" unit
step fuzz-smoke make -s -C "$top" fuzz-smoke
# make deb, and DKMS building that package for a second kernel ABI on the
# host (the VM's kernel: dkms_package.sh).
step dkms-abi make -s -C "$top" dkms-abi
# The kselftests but the slow ones, dealt out to three VM boots that run
# at once. Every test's time doubled on the machines CI now runs on (AMD
# EPYC, 2 cores: iser_data.sh 504 s, 213 s on the Xeon of 2026-11-28),
# and the kselftest step with all but three took 2540 s: make check took
# 48 minutes. ksft_slow is what check-full adds (step kselftest-slow):
# targetcli under IO and saveconfig/restoreconfig, the fault and fuzz
# suites (iser_faults.sh, tcp_faults.sh, backend_errors.sh, mutate.sh,
# statefuzz.sh, tcp_netem.sh), iSER's registration, login, keepalive,
# wildcard and iWARP matrices, and the memory and login-storm bounds.
# With 27 tests left the step took 1458 s and make check 30 minutes.
# alloc_fail.sh runs in check-full's own step (kselftest-alloc-full),
# its full walk a superset of the short one. make bench's harness is
# check-full's too (bench-smoke; make bench-check alone).
ksft_slow="tcp_session_memory.sh tcp_line_sizes.sh tcp_login_storm.sh
	targetcli_under_io.sh targetcli_saverestore.sh iser_faults.sh
	tcp_faults.sh backend_errors.sh mutate.sh statefuzz.sh tcp_netem.sh
	iser_reg.sh iser_login.sh iser_keepalive.sh iser_iwarp.sh
	iser_wildcard.sh"
step kselftest env IXT_KSFT_VMS=3 IXT_KSFT_SKIP="$ksft_slow alloc_fail.sh" \
	make -s -C "$top" kselftest
# The multi-VM harness: initiator and target in two VMs joined by a
# wire (multi-smoke.sh), then persistent reservations through three
# ports of two nodes (pr.sh), each over TCP and iSER, the modules as the
# kselftests built them: 28 s and 156 s on a quiet host (2026-12-04),
# multi-smoke up to 188 s beside other VMs.
step check-multi "$top/scripts/vm/multi-smoke.sh" "$build"
step check-pr "$top/scripts/vm/pr.sh" "$build"
# make check-full: the kselftests make check leaves out (ksft_slow), in
# three boots; dkms_package.sh, whose DKMS build in the VM, under
# TCG, outlasted a test's 600 s on the reference machine, in a boot of
# its own with a longer timeout (make kselftest-dkms); the iSER data,
# fault and bad-input tests again over soft-iWARP (the modules built
# with fault injection, as make kselftest builds them: iser_badinput.sh
# loses a Send with it); alloc_fail.sh's full walk (IXT_ALLOC_FULL: the
# first, second and last allocation of every iSER site too; the modules
# built without fault injection after it); the benchmark harness in its
# full smoke mode; two target nodes behind ALUA and dm-multipath (over
# TCP, then iSER: the part of make check-multi that make check leaves
# out); make check-ha, two target nodes under
# Pacemaker, Corosync and DRBD; make tree-check, the module laid into
# linux-source-6.12 (make tree) and built there from Kconfig; and make
# check-debug, every kselftest again on the debug kernel (KASAN,
# lockdep, kmemleak, UBSAN...), built first if this machine has not
# built it yet.
if [ -n "${IXT_CHECK_FULL:-}" ]; then
	step kselftest-slow bash -c 'make -s -C "$1" modules IXT_FAULT_INJECT=1 &&
		IXT_KSFT_NAME=kselftest-slow IXT_KSFT_VMS=3 \
		"$1/scripts/kselftest.sh" "$2" $3' - "$top" "$build" "$ksft_slow"
	step kselftest-dkms make -s -C "$top" kselftest-dkms
	step kselftest-siw bash -c 'make -s -C "$1" modules IXT_FAULT_INJECT=1 &&
		IXT_RDMA=siw "$1/scripts/kselftest.sh" "$2" \
		iser_data.sh iser_faults.sh iser_badinput.sh' - "$top" "$build"
	step kselftest-alloc-full bash -c 'make -s -C "$1" modules IXT_FAULT_INJECT=1 &&
		IXT_ALLOC_FULL=1 IXT_KSFT_NAME=kselftest-alloc \
		"$1/scripts/kselftest.sh" "$2" alloc_fail.sh; rc=$?
		make -s -C "$1" modules; exit $rc' - "$top" "$build"
	step bench-smoke "$top/scripts/bench/smoke.sh"
	step check-mpath "$top/scripts/vm/mpath.sh" "$build"
	step check-ha "$top/scripts/vm/ha.sh" "$build"
	step tree "$top/scripts/tree-check.sh" "$build"
	# In four parts, each a step: the whole, the debug kernel some six
	# times slower than Debian's, outlasts a session here, and
	# IXT_CHECK_RESUME keeps the parts that passed.
	for k in 1 2 3 4; do
		step check-debug-$k env IXT_DEBUG_PART=$k/4 \
			"$top/scripts/check-debug.sh" "$build"
	done
fi

if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
