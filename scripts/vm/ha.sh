#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An active/passive pair of target nodes under Pacemaker, Corosync and
# DRBD with the stock resource agents: three VMs of scripts/vm/multi.sh,
# node1 and node2 each with a disk of its own that DRBD replicates over
# the wire between them, both wired to the initiator, running
# scripts/vm/ha-guest.sh over TCP: a standby switchover, then a node
# powered off, fenced through multi.sh's power requests, and booted
# again. The nodes load
# iscsi_xt as "make install" leaves it: it is installed here, with
# DESTDIR, into a copy of the VM kernel's module tree
# (build/vm/ha-modules/, hard links but for what depmod rewrites), which
# each node mounts over its own.
# Prints each VM's "ok N - ROLE: ..." lines as they come, then the
# failover time measured, a line for each VM's end and "N passed, N
# failed" (scripts/vm/multi-report.sh); results in build/vm/ha-tcp/.
#
#   scripts/vm/ha.sh [BUILD_DIR]

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
guest=$top/scripts/vm/ha-guest.sh
kver=$(cat "$build/kernel/KVER")
src=$build/kernel/lib/modules/$kver
tree=$build/vm/ha-modules
start=$SECONDS
runs=()
# iSER (iser_portals, soft-RoCE on the client network) comes later.
xports=(tcp)

# The module tree with iscsi_xt installed (make install DESTDIR=...) and
# depmod run over it; the files depmod writes are copies, not links.
rm -rf "$tree"
mkdir -p "$tree/lib/modules/$kver"
cp -al "$src/kernel" "$tree/lib/modules/$kver/"
cp "$src"/modules.* "$tree/lib/modules/$kver/"
if ! make -s -C "$top" install DESTDIR="$tree" KVER="$kver" BUILD="$build" \
	>"$tree.log" 2>&1 || ! depmod -b "$tree" "$kver" >>"$tree.log" 2>&1; then
	cat "$tree.log" >&2
	exit 1
fi

for x in "${xports[@]}"; do
	run=$build/vm/ha-$x
	runs+=("$run")
	IXT_BUILD=$build "$top/scripts/vm/multi.sh" -t 3600 -n "ha-$x" \
		-p 256M:node1,node2 -w node1:initiator -w node2:initiator \
		-w node1:node2 node1="$guest,$x" node2="$guest,$x" \
		initiator="$guest,$x" || true
done

echo "failover (case, transport, s from the request until I/O stopped, until it resumed, the stall):"
for run in "${runs[@]}"; do
	sed 's/^/  /' "$run/initiator/failover.tsv" 2>/dev/null || true
done
echo "ha: $((SECONDS - start)) s"
exec "$top/scripts/vm/multi-report.sh" "node1 node2 initiator" "${runs[@]}"
