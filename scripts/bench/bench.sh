#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: iscsi_xt against LIO's own target, side by side in one VM
# boot, alternating per round (see scripts/bench/guest.sh).
#
#   scripts/bench/bench.sh [-q | -s] [-r ROUNDS] [-p PARAMS] [CELL...]
#
#   -q          quick: one round, 3 s cells after a 1 s ramp
#   -s          smoke test of the harness (make check): one round of 1 s
#               cells, 4 KiB random reads at iodepth 1 and writes at 32
#   -r ROUNDS   rounds (default 3), each 10 s cells after a 2 s ramp
#   -p PARAMS   iscsi_xt module parameters, e.g. "line_size=262144"
#               (default: none); the table's header names them
#
# Results: build/bench/{cells.jsonl,results.json,table.md,chart.png}
# (build/bench-smoke/ with -s); the table is printed at the end. The VM
# boots without the debug options.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
rounds=3 runtime=10 ramp=2

smoke= name=bench xt_params=
while getopts "qsr:p:" opt; do
	case "$opt" in
	q)	rounds=1 runtime=3 ramp=1 ;;
	s)	rounds=1 runtime=1 ramp=0 smoke=1 name=bench-smoke ;;
	r)	rounds=$OPTARG ;;
	p)	xt_params=$OPTARG ;;
	*)	exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$smoke" ] && [ $# -eq 0 ] && set -- randread-4k-qd1 randwrite-4k-qd32

"$top/scripts/setup.sh" "$build"
make -s -C "$top" modules
IXT_BUILD=$build "$top/scripts/vm/run.sh" -m 6G -t 5400 -n "$name" \
	"$top/scripts/bench/guest.sh" "$rounds" "$runtime" "$ramp" "$xt_params" "$@"

out=$build/$name
mkdir -p "$out"
cp "$build/vm/$name/cells.jsonl" "$out/"
{
	echo "make bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $rounds round(s) of ${runtime}s cells"
	echo "host: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); VM: QEMU TCG, 2 vCPUs, 6 GiB"
	[ -z "$xt_params" ] || echo "iscsi_xt module parameters: $xt_params"
} >"$out/header.txt"
cat "$out/header.txt"
"$top/scripts/bench/report.py" "$out/cells.jsonl" "$out"
