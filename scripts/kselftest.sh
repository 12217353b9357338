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
# default all run but those IXT_KSFT_SKIP names (a list separated by blanks).
# A TEST may also be a program the Makefile installs but does not list
# (TEST_PROGS_EXTENDED: soak.sh, which make soak runs). IXT_KSFT_TIMEOUT
# overrides the tests' timeout (the settings file's), in seconds.
# IXT_KSFT_VM_TIMEOUT bounds a whole VM boot, in seconds (2700, or the
# tests' timeout plus 600).
# With IXT_RDMA=siw the VM has soft-iWARP siw0 on veth0 in place of
# soft-RoCE rxe0 (results in build/vm/kselftest-siw); IXT_KSFT_NAME names
# the results folder instead (build/vm/NAME).
#
# With IXT_KSFT_VMS=N (N > 1) the tests are dealt out to N VM boots that
# run at once (build/vm/NAME-1 ... NAME-N): a VM under TCG keeps about one
# host CPU busy, its tests waiting on timers, the network and their
# initiators much of the time. scripts/vm/ksft-deal deals them: it
# balances the seconds each test took on the reference machine
# (scripts/vm/ksft-seconds; a test missing there counts as 60 s), the
# longest first, each to the boot with the fewest seconds so far.
#
# Each boot has IXT_VM_SMP vCPUs, 1 by default (run.sh's default is 2).
# Three boots of two vCPUs each on the reference machine's two cores
# took 1805 s for make check's tests, of one each 1300 s: a guest's vCPU
# that spins for a lock whose holder's vCPU the host has descheduled burns
# the time the holder needs. One vCPU also keeps clear of TCG's int3
# deaths in kernel text patching (scripts/vm/qemu-lib.sh), which happened
# only with several. make check-debug keeps two, for lockdep and KASAN to
# see code run truly at once.
#
# Ends with "N passed, N failed, N skipped" (one per test program) and
# exits non-zero when any test failed or a VM did not finish.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
shift $(($# > 0 ? 1 : 0))
col=drivers/target/iscsi_xt
name=${IXT_KSFT_NAME:-kselftest${IXT_RDMA:+-$IXT_RDMA}}
# One install per results folder: runs of different NAMEs may overlap.
ksft=$build/ksft/$name
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
for t in "$@"; do
	grep -qxF "$col:$t" "$inst/kselftest-list.txt" ||
		{ [ -x "$inst/$col/$t" ] && echo "$col:$t" >>"$inst/kselftest-list.txt"; }
done
if [ $# -eq 0 ] && [ -n "${IXT_KSFT_SKIP:-}" ]; then
	mapfile -t tests < <(sed "s|^$col:||" "$inst/kselftest-list.txt" |
		grep -vxF -f <(tr -s ' \t' '\n\n' <<<"$IXT_KSFT_SKIP" | grep .))
	set -- "${tests[@]}"
fi

if [ $# -eq 0 ]; then
	mapfile -t all < <(sed "s|^$col:||" "$inst/kselftest-list.txt")
	set -- "${all[@]}"
fi
vms=${IXT_KSFT_VMS:-1}
export IXT_VM_SMP=${IXT_VM_SMP:-1}
[ "$vms" -le $# ] || vms=$#
[ "$vms" -ge 1 ] || vms=1

# boot NAME TEST...: one VM boot running the TESTs.
boot() {
	local vm=$1

	shift
	IXT_BUILD=$build "$top/scripts/vm/run.sh" -d -t "$vm_timeout" -n "$vm" \
		"$top/scripts/vm/kselftest-guest.sh" "$inst" "${@/#/$col:}"
}

vm_timeout=2700
if [ -n "${IXT_KSFT_TIMEOUT:-}" ]; then
	vm_timeout=$((IXT_KSFT_TIMEOUT + 600))
	export IXT_KSFT_TIMEOUT
fi
vm_timeout=${IXT_KSFT_VM_TIMEOUT:-$vm_timeout}
rc=0
logs=()
if [ "$vms" -eq 1 ]; then
	boot "$name" "$@" || rc=$?
	logs=("$build/vm/$name/output.log")
else
	# Boots that find the initramfs stale build it at once; each
	# renames its own into place (scripts/vm/mkinitramfs.sh).
	dealt=$("$top/scripts/vm/ksft-deal" "$vms" "$@")
	mkdir -p "$build/vm"
	pids=()
	for ((i = 1; i <= vms; i++)); do
		mapfile -t mine < <(awk -v i="$i" '$1 == i { print $2 }' <<<"$dealt")
		echo "kselftest: $name-$i runs ${mine[*]}"
		boot "$name-$i" "${mine[@]}" >"$build/vm/$name-$i.log" 2>&1 &
		pids+=($!)
		logs+=("$build/vm/$name-$i/output.log")
	done
	for ((i = 1; i <= vms; i++)); do
		wait "${pids[i - 1]}" || rc=$?
		sed "s/^/[$name-$i] /" "$build/vm/$name-$i.log"
	done
fi

# The failed programs and their failed checks, last, where a log's tail
# (CI's) shows them.
recap=$(cat "${logs[@]}" | awk '
	/^ok [0-9]+ selftests: / { bad = "" }
	/^# not ok / { bad = bad "  " $0 "\n" }
	/^not ok [0-9]+ selftests: / { printf "  %s\n%s", $0, bad; bad = "" }')
[ -z "$recap" ] || printf 'kselftest: failed:\n%s\n' "$recap"
pass=$(cat "${logs[@]}" | grep -E '^ok [0-9]+ selftests: ' | grep -vc '# SKIP' || true)
skip=$(cat "${logs[@]}" | grep -E '^ok [0-9]+ selftests: ' | grep -c '# SKIP' || true)
fail=$(cat "${logs[@]}" | grep -cE '^not ok [0-9]+ selftests: ' || true)
total=$#
if [ $((pass + skip + fail)) -ne "$total" ]; then
	echo "kselftest: $((pass + skip + fail)) of $total tests reported (VM status $rc)"
	fail=$((total - pass - skip))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
