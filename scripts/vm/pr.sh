#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SCSI-3 persistent reservations through the ports of two target nodes
# (make check-multi): three VMs of scripts/vm/multi.sh, node1 and node2
# sharing one disk, each wired to the initiator, running
# scripts/vm/pr-guest.sh, over TCP, then again over iSER (or only over
# the transports given).
# Prints each VM's "ok N - ROLE: ..." lines as they come, a line for each
# VM's end and "N passed, N failed" (scripts/vm/multi-report.sh); results
# in build/vm/pr-tcp/ and build/vm/pr-iser/.
#
#   scripts/vm/pr.sh [BUILD_DIR [tcp|iser]...]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
guest=$top/scripts/vm/pr-guest.sh
start=$SECONDS
runs=()

shift || true
xports=("$@")
[ ${#xports[@]} -gt 0 ] || xports=(tcp iser)
for x in "${xports[@]}"; do
	run=$build/vm/pr-$x
	runs+=("$run")
	IXT_BUILD=$build "$top/scripts/vm/multi.sh" -t 1200 -n "pr-$x" \
		-s 256M:node1,node2 -w node1:initiator -w node2:initiator \
		node1="$guest,$x" node2="$guest,$x" initiator="$guest,$x" || true
done

echo "pr: $((SECONDS - start)) s"
exec "$top/scripts/vm/multi-report.sh" "node1 node2 initiator" "${runs[@]}"
