#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: set up, build, boot the VM and show iscsi_xt driven by an
# unmodified targetcli.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$top/build}

"$top/scripts/setup.sh" "$build"
make -s -C "$top" modules
IXT_BUILD=$build "$top/scripts/vm/run.sh" -t 900 -n demo "$top/scripts/vm/demo-guest.sh"
