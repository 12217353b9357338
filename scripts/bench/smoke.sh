#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The smoke tests of make bench's harness, each ending with "N passed,
# N failed"; speed is never asserted here.
#
#   scripts/bench/smoke.sh [-c]
#
# Without -c, the make check-full step (bench-smoke): the harness in smoke mode
# (bench.sh -s: one round of two 1 s cells, LIO, iscsi_xt and tgt over
# TCP and over iSER on rxe0, iscsi_xt and tgt over iSER on siw0, both
# backstores; the scale job with 1 s cells; the noisy-neighbour job with
# phases of 2, 4 and 2 s; the bounds), checking that every cell of every
# target on each transport produced IOPS, a latency and a CPU cost, that
# the scale job measured each session count, the idle sessions' memory
# and the CHAP logins, and that the noisy-neighbour job measured both
# sessions in every phase, for LIO and iscsi_xt.
#
# With -c, make bench-check: the short smoke (bench.sh -c: one 1 s
# cell on the null_blk LUN for LIO, iscsi_xt and tgt over TCP and for LIO
# and iscsi_xt over iSER on rxe0; the scale job with 4 and 1 sessions and
# the noisy-neighbour job for iscsi_xt; no bounds), with the same checks
# of what it ran.

set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}
mode=-s name=bench-smoke
case "${1:-}" in
'')	;;
-c)	mode=-c name=bench-check ;;
*)	echo "usage: $0 [-c]" >&2
	exit 2 ;;
esac

"$top/scripts/bench/bench.sh" "$mode" >"$build/$name.log" 2>&1
rc=$?
tail -n 20 "$build/$name.log"
/usr/bin/python3 - "$build/$name/results.json" "$rc" "$mode" <<'PY'
import json
import sys

path, rc, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
short = mode == "-c"
passed = failed = 0
try:
    with open(path) as f:
        res = json.load(f)
except (OSError, ValueError) as e:
    print(f"not ok: no results ({e})")
    res = {}
cells = res if isinstance(res, list) else []


def check(what, match, keys, positive=True):
    """The cell whose fields are MATCH's values has each of KEYS, more
    than 0 if POSITIVE."""
    global passed, failed
    m = next((c for c in cells if all(c.get(k) == v for k, v in match.items())),
             None)
    ok = bool(m) and all(m.get(k) is not None and (not positive or m[k] > 0)
                         for k in keys)
    print(f"{'ok' if ok else 'not ok'}: {what}" + ("" if ok else f" {m}"))
    passed += ok
    failed += not ok


fio = ("iops", "p50_us", "cpu_us_per_io")
if short:
    matrix = ((("tcp", ("lio", "xt", "tgt")), ("iser", ("lio", "xt"))),
              ("nullb",), ("randwrite-4k-qd32",))
    jobs, sessions = ("xt",), (1, 4)
else:
    matrix = ((("tcp", ("lio", "xt", "tgt")), ("iser", ("lio", "xt", "tgt")),
               ("iwarp", ("xt", "tgt"))),
              ("nullb", "rd"), ("randread-4k-qd1", "randwrite-4k-qd32"))
    jobs, sessions = ("lio", "xt"), (1, 4, 16)
for tp, targets in matrix[0]:
    for target in targets:
        for bs in matrix[1]:
            for cell in matrix[2]:
                check(f"{target} {tp} {bs} {cell}",
                      {"target": target, "transport": tp, "backstore": bs,
                       "cell": cell}, fio)
n = max(sessions)
for target in jobs:
    # Cell, what must be there, what must be more than 0 (fio may not
    # finish a 1 MiB write of N sessions at iodepth 32 in a 1 s cell).
    for cell, keys, positive in [
            (f"randread-4k-qd8-x{s}", fio, True) for s in sessions] + [
            (f"write-1m-qd32-x{n}", ("iops", "ios_ge_1s", "max_ms"), False),
            (f"idle-sessions-x{n}", ("mem_kib", "slab_kib"), False),
            ("login-chap", ("logins_per_s",), True)]:
        check(f"{target} tcp scale {cell}",
              {"target": target, "transport": "tcp", "cell": cell}, keys,
              positive)
for target in jobs:
    check(f"{target} tcp noisy neighbour",
          {"target": target, "transport": "tcp", "cell": "noisy"},
          [f"{k}_{p}" for p in ("fast", "slow", "rec")
           for k in ("light_iops", "flood_iops", "win_flood")] +
          ["light_p99_slow_us", "total_iops_slow"])
if rc:
    print(f"not ok: bench.sh exited with {rc}")
    failed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
