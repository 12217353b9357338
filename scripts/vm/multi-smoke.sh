#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The multi-VM smoke test (make check-multi): initiator and target in two
# kernels, two VMs of scripts/vm/multi.sh joined by one wire, the target
# serving iscsi_xt over TCP and iSER (scripts/vm/multi-smoke-guest.sh).
# Prints each VM's "ok N - ROLE: ..." lines as they come, then one line
# for each VM's end and "N passed, N failed"; results in
# build/vm/multi-smoke/.
#
#   scripts/vm/multi-smoke.sh [BUILD_DIR]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
guest=$top/scripts/vm/multi-smoke-guest.sh
run=$build/vm/multi-smoke
start=$SECONDS

IXT_BUILD=$build "$top/scripts/vm/multi.sh" -t 900 -n multi-smoke \
	-w target:initiator target="$guest" initiator="$guest" || true

echo "multi-smoke: $((SECONDS - start)) s"
exec "$top/scripts/vm/multi-report.sh" "target initiator" "$run"
