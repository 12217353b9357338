#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job: prepare the VM and run the installed kselftests.
#
#   kselftest-guest.sh INSTALL_DIR [COLLECTION:TEST...]
#
# On a kernel with kmemleak (the debug kernel): its periodic scan off,
# whatever the boot left unreferenced forgotten before the first test
# (each test scans for its own, lib.sh's ixt_kmemleak_check), and one
# last scan after the last test, into $IXT_OUT/kmemleak.log, for what a
# test that ended early did not look for.

. "$IXT_TOP/scripts/vm/guest-env.sh"
cd "$1" || exit 1
shift
tests=()
[ -n "${IXT_KSFT_TIMEOUT:-}" ] && tests+=(-o "$IXT_KSFT_TIMEOUT")
for t in "$@"; do
	tests+=(-t "$t")
done

leaks=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
if [ -w "$leaks" ]; then
	echo scan=off >"$leaks"
	echo scan >"$leaks"
	echo clear >"$leaks"
fi
./run_kselftest.sh "${tests[@]}"
rc=$?
if [ -w "$leaks" ]; then
	sleep 6
	echo scan >"$leaks"
	cat "$leaks" >"$IXT_OUT/kmemleak.log"
fi
exit $rc
