#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job: prepare the VM and run the installed kselftests.
#
#   kselftest-guest.sh INSTALL_DIR [COLLECTION:TEST...]

. "$IXT_TOP/scripts/vm/guest-env.sh"
cd "$1" || exit 1
shift
tests=()
[ -n "${IXT_KSFT_TIMEOUT:-}" ] && tests+=(-o "$IXT_KSFT_TIMEOUT")
for t in "$@"; do
	tests+=(-t "$t")
done
./run_kselftest.sh "${tests[@]}"
