#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two target nodes behind ALUA and dm-multipath (make check-multi): three
# VMs of scripts/vm/multi.sh, node1 and node2 sharing one disk, each wired
# to the initiator and to each other, running scripts/vm/mpath-guest.sh,
# over TCP, then again over iSER.
# Prints each VM's "ok N - ROLE: ..." lines as they come, then the
# failover times measured, a line for each VM's end and "N passed, N
# failed" (scripts/vm/multi-report.sh); results in build/vm/mpath-tcp/
# and build/vm/mpath-iser/.
#
#   scripts/vm/mpath.sh [BUILD_DIR]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
guest=$top/scripts/vm/mpath-guest.sh
start=$SECONDS
runs=()

# The same test over each transport: TCP, then iSER (soft-RoCE).
for x in tcp iser; do
	run=$build/vm/mpath-$x
	runs+=("$run")
	IXT_BUILD=$build "$top/scripts/vm/multi.sh" -t 1200 -n "mpath-$x" \
		-s 1G:node1,node2 -w node1:initiator -w node2:initiator \
		-w node1:node2 node1="$guest,$x" node2="$guest,$x" \
		initiator="$guest,$x" || true
done

echo "failover (case, transport, direction, s until I/O ran on the other path only, longest stall of the map's I/O in s):"
cat "$build"/vm/mpath-{tcp,iser}/initiator/failover.tsv 2>/dev/null | sed 's/^/  /' || true
echo "mpath: $((SECONDS - start)) s"
exec "$top/scripts/vm/multi-report.sh" "node1 node2 initiator" "${runs[@]}"
