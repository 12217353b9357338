#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: iscsi_xt against LIO's own target and against Debian's
# user-space tgt, side by side in one VM boot, alternating per round and
# transport (see scripts/bench/guest.sh): over TCP, iscsi_xt against
# iscsi_target_mod and tgtd; over iSER (soft-RoCE rxe0), iscsi_xt +
# iscsi_xt_iser against iscsi_target_mod + ib_isert and tgtd's iser
# driver; over iSER on soft-iWARP siw0, iscsi_xt against tgtd (LIO
# cannot listen there).
#
#   scripts/bench/bench.sh [-q | -s | -c] [-P] [-C] [-r ROUNDS] [-t LIST] [-j LIST] [-p PARAMS] [CELL...]
#
#   -q          quick: one round, 3 s cells after a 1 s ramp
#   -s          smoke test of the harness (make check-full): one round of
#               1 s cells, 4 KiB random reads at iodepth 1 and writes at 32
#   -c          short smoke test (make check): as -s, but over TCP and
#               iSER on rxe0 only (-t may change that), of one cell, 4 KiB
#               random writes at iodepth 32, on the null_blk LUN only;
#               over iSER LIO and iscsi_xt, not tgt; the scale job with 4
#               and 1 sessions and 3 CHAP logins, it and the noisy job for
#               iscsi_xt only; no bounds. The modules are built as they
#               were last (with IXT_FAULT_INJECT=1 after make kselftest:
#               nothing to rebuild, the faults unarmed)
#   -P          profile: perf samples the whole guest during each cell
#               (cpu-clock, 250 Hz); its time per module and symbol goes
#               to build/bench/profile/ (the sampling costs CPU: the
#               cells' numbers are then not for comparison with others).
#               Not in make check: perf events patch kernel text each
#               time they go on and off, and under TCG text patching has
#               ended in an int3 oops twice (in __schedule during a -P
#               smoke run, and once at boot with no perf at all)
#   -C          cost: what an IO costs, counted, for each cell and
#               target: the guest's context switches and softirqs
#               (/proc/stat, /proc/softirqs), and with perf stat -a the
#               work items run and slab allocations (tracepoints
#               workqueue:workqueue_execute_start, kmem:kmem_cache_alloc,
#               kmem:kmalloc), each per IO; for iscsi_xt also its debugfs
#               cost file: bytes copied per payload byte, cache lines per
#               IO. Into build/bench/cost.md. Not in make check's smoke
#               (-c), nor in make bench's default (BENCH_FLAGS=-C asks for
#               it): the tracepoints go on and off around each cell, which
#               patches kernel text, as -P's events do
#   -r ROUNDS   rounds (default 3), each 10 s cells after a 2 s ramp
#   -t LIST     transports, in the order run, from tcp, iser, iwarp
#               (default: all three); may be repeated
#   -j LIST     jobs, from matrix (the fio matrix, of the CELLs given
#               or all) and scale (1, 4 and 16 sessions at once, the
#               memory of idle sessions, CHAP logins per second; over
#               TCP) and noisy (a flooding and a light session on one
#               LUN whose backend slows down and recovers; over TCP)
#               (default: all three); may be repeated
#   -p PARAMS   iscsi_xt module parameters, e.g. "line_size=262144"
#               (default: none); the table's header names them
#
# Results: build/bench/{cells.jsonl,results.json,table.md,chart.png,scale.png,
# noisy.png}, cost.md with -C, and the noisy job's time series in build/bench/noisy/
# (build/bench-smoke/ with -s, build/bench-check/ with -c); the table is
# printed at the end. The VM boots without the debug options.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
rounds=3 runtime=10 ramp=2

# add_words OPT LIST WORDS CHOICE...: LIST with each of WORDS (comma- or
# space-separated, each a CHOICE) added at its end, once; exits with a
# message for -OPT otherwise.
add_words() {
	local opt=$1 list=$2 words=${3//,/ } w

	shift 3
	for w in $words; do
		case " $* " in
		*" $w "*) ;;
		*)	echo "bench: -$opt $w: one of $* expected" >&2
			exit 2 ;;
		esac
		case " $list " in
		*" $w "*) ;;
		*)	list="${list:+$list }$w" ;;
		esac
	done
	echo "$list"
}

smoke='' short='' name=bench xt_params='' transports='' profile='' jobs='' cost=''
while getopts "qscPCr:t:j:p:" opt; do
	case "$opt" in
	q)	rounds=1 runtime=3 ramp=1 ;;
	s)	rounds=1 runtime=1 ramp=0 smoke=1 name=bench-smoke ;;
	c)	rounds=1 runtime=1 ramp=0 smoke=1 short=1 name=bench-check ;;
	r)	rounds=$OPTARG ;;
	t)	transports=$(add_words t "$transports" "$OPTARG" tcp iser iwarp) ;;
	j)	jobs=$(add_words j "$jobs" "$OPTARG" matrix scale noisy) ;;
	p)	xt_params=$OPTARG ;;
	P)	profile=1 ;;
	C)	cost=1 ;;
	*)	exit 2 ;;
	esac
done
shift $((OPTIND - 1))
jobs=${jobs:-matrix scale noisy}
fault_inject='' vm_timeout=''
if [ -n "$short" ]; then
	# Minutes at most: a hang must not eat make check's half hour.
	vm_timeout=1200
	transports=${transports:-tcp iser}
	[ $# -eq 0 ] && set -- randwrite-4k-qd32
	# Built as last built: after make kselftest, with fault injection,
	# whose sites only count while nothing arms them.
	[ -z "$(modinfo -F ixt_fault_inject "$top/drivers/target/iscsi_xt/iscsi_xt.ko" \
		2>/dev/null)" ] || fault_inject=1
fi
transports=${transports:-tcp iser iwarp}
[ -n "$smoke" ] && [ $# -eq 0 ] && set -- randread-4k-qd1 randwrite-4k-qd32
vm_timeout=${vm_timeout:-$((5400 * $(wc -w <<<"$transports")))}

"$top/scripts/setup.sh" "$build"
make -s -C "$top" modules ${fault_inject:+IXT_FAULT_INJECT=1}
IXT_BUILD=$build "$top/scripts/vm/run.sh" -m 6G -t "$vm_timeout" -n "$name" \
	"$top/scripts/bench/guest.sh" "$rounds" "$runtime" "$ramp" "$xt_params" \
	"$transports" "$profile" "$cost" "$jobs" "$short" "$@"

out=$build/$name
mkdir -p "$out"
cp "$build/vm/$name/cells.jsonl" "$out/"
rm -rf "$out/noisy"
if [ -d "$build/vm/$name/noisy" ]; then
	mkdir -p "$out/noisy"
	cp "$build/vm/$name"/noisy/*.tsv "$out/noisy/" 2>/dev/null || true
fi
if [ -n "$profile" ]; then
	rm -rf "$out/profile"
	mkdir -p "$out/profile"
	cp "$build/vm/$name"/fio/*.perf.txt "$out/profile/"
fi
{
	echo "make bench, $(date -u '+%Y-%m-%d %H:%M UTC'), $rounds round(s) of ${runtime}s cells"
	echo "host: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); VM: QEMU TCG, 2 vCPUs, 6 GiB"
	echo "jobs: $jobs${short:+ (short smoke: see bench.sh -c)}"
	echo "transports: $transports (iser: soft-RoCE rxe0, iwarp: soft-iWARP siw0, on veth0, MTU 9000)"
	[ -z "$xt_params" ] || echo "iscsi_xt module parameters: $xt_params"
	[ -z "$profile" ] || echo "profiled with perf: CPU numbers include the sampling"
	[ -z "$cost" ] || echo "costs counted (-C): perf stat counts tracepoints during each cell"
} >"$out/header.txt"
cat "$out/header.txt"
"$top/scripts/bench/report.py" "$out/cells.jsonl" "$out"
