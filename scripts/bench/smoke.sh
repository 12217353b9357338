#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The make check step for make bench: runs the harness in smoke mode (one
# round of two 1 s cells, LIO, iscsi_xt and tgt over TCP and over iSER
# on rxe0, iscsi_xt and tgt over iSER on siw0, both backstores; the
# scale job with 1 s cells; the noisy-neighbour job with phases of 2, 4
# and 2 s) and checks that every cell of every target on each transport
# produced IOPS, a latency and a CPU cost, that the scale job measured
# each session count, the idle sessions' memory and the CHAP logins, and
# that the noisy-neighbour job measured both sessions in every phase.
# Speed is never asserted here. Ends with "N passed, N failed".

set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$top/build}

"$top/scripts/bench/bench.sh" -s >"$build/bench-smoke.log" 2>&1
rc=$?
tail -n 20 "$build/bench-smoke.log"
/usr/bin/python3 - "$build/bench-smoke/results.json" "$rc" <<'PY'
import json
import sys

path, rc = sys.argv[1], int(sys.argv[2])
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
for tp, targets in (("tcp", ("lio", "xt", "tgt")), ("iser", ("lio", "xt", "tgt")),
                    ("iwarp", ("xt", "tgt"))):
    for target in targets:
        for bs in ("nullb", "rd"):
            for cell in ("randread-4k-qd1", "randwrite-4k-qd32"):
                check(f"{target} {tp} {bs} {cell}",
                      {"target": target, "transport": tp, "backstore": bs,
                       "cell": cell}, fio)
for target in ("lio", "xt"):
    # Cell, what must be there, what must be more than 0 (fio may not
    # finish a 1 MiB write of 16 sessions at iodepth 32 in a 1 s cell).
    for cell, keys, positive in [
            (f"randread-4k-qd8-x{n}", fio, True) for n in (1, 4, 16)] + [
            ("write-1m-qd32-x16", ("iops", "ios_ge_1s", "max_ms"), False),
            ("idle-sessions-x16", ("mem_kib", "slab_kib"), False),
            ("login-chap", ("logins_per_s",), True)]:
        check(f"{target} tcp scale {cell}",
              {"target": target, "transport": "tcp", "cell": cell}, keys,
              positive)
for target in ("lio", "xt"):
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
