#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two target nodes behind ALUA and dm-multipath (make check-multi): three
# VMs of scripts/vm/multi.sh, node1 and node2 sharing one disk, each wired
# to the initiator and to each other, running scripts/vm/mpath-guest.sh.
# Prints each VM's "ok N - ROLE: ..." lines as they come, then the
# failover times measured, a line for each VM's end and "N passed, N
# failed" (scripts/vm/multi-report.sh); results in build/vm/mpath/.
#
#   scripts/vm/mpath.sh [BUILD_DIR]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
guest=$top/scripts/vm/mpath-guest.sh
run=$build/vm/mpath
start=$SECONDS

IXT_BUILD=$build "$top/scripts/vm/multi.sh" -t 1200 -n mpath -s 1G:node1,node2 \
	-w node1:initiator -w node2:initiator -w node1:node2 \
	node1="$guest" node2="$guest" initiator="$guest" || true

if [ -s "$run/initiator/failover.tsv" ]; then
	echo "failover (case, transport, direction, s until I/O ran on the other path only, longest stall of the map's I/O in s):"
	sed 's/^/  /' "$run/initiator/failover.tsv"
fi
echo "mpath: $((SECONDS - start)) s"
exec "$top/scripts/vm/multi-report.sh" "$run" node1 node2 initiator
