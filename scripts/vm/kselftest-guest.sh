#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job: prepare the VM and run the installed kselftests.
#
#   kselftest-guest.sh INSTALL_DIR

. "$IXT_TOP/scripts/vm/guest-env.sh"
cd "$1" && ./run_kselftest.sh
