#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the cells make bench measured into results.json, table.md and chart.png.

    report.py CELLS_JSONL OUTDIR

Medians over rounds per (target, transport, backstore, cell) of the three
targets: LIO, iscsi_xt and tgt (Debian's user-space target); the ratio
columns are iscsi_xt over LIO and iscsi_xt over tgt on the same
transport (TCP, iSER; over iWARP LIO cannot listen, tgt can). A target
without a result for a cell shows "-", and the errors it recorded are
listed under the table. The chart (gnuplot, when installed) shows the
ratios to LIO for IOPS and for CPU cost per IO, and to tgt for IOPS. The scale job's cells (sessions at once, idle sessions' memory,
CHAP logins) get a table of their own, and scale.png the IOPS per
session count.
"""

import json
import os
import re
import statistics
import subprocess
import sys

METRICS = ("iops", "bw", "p50_us", "p99_us", "cpu_us_per_io", "ios_ge_1s",
           "ios_ge_2s", "max_ms", "mem_kib", "slab_kib", "logins_per_s")
TRANSPORTS = ("tcp", "iser", "iwarp")
SCALE_CELL = re.compile(r"^([a-z]+-[0-9a-z]+-qd[0-9]+)-x([0-9]+)$")


def scale_job(cell):
    """Whether CELL is one of the scale job's."""
    return bool(SCALE_CELL.match(cell)) or cell.startswith("idle-sessions-") \
        or cell == "login-chap"


def load(path):
    with open(path) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    # Cells from before the iSER pair were all over TCP; RDMA bounds from
    # before the iWARP rows were all on rxe0.
    for r in recs:
        r.setdefault("transport", "tcp" if r["target"] in ("lio", "xt") else "-")
        if r["target"] == "rdma" and r["transport"] == "-":
            r["transport"] = "rxe0"
    return recs


def medians(recs):
    groups = {}
    for r in recs:
        groups.setdefault((r["target"], r["transport"], r["backstore"], r["cell"]),
                          []).append(r)
    out = {}
    for key, rs in groups.items():
        ok = [r for r in rs if "error" not in r]
        m = {"rounds": len(ok), "errors": sorted({r["error"] for r in rs if "error" in r})}
        for k in METRICS:
            vals = [r[k] for r in ok if r.get(k) is not None]
            m[k] = statistics.median(vals) if vals else None
        out[key] = m
    return out


def fmt(v, scale=1.0, digits=0):
    return "-" if v is None else f"{v / scale:,.{digits}f}"


def lat(m):
    """A cell's latency percentiles "p50/p99", in microseconds."""
    return f"{fmt(m.get('p50_us'))}/{fmt(m.get('p99_us'))}"


def stalls(m):
    """A cell's IOs of 1 s and 2 s or more, and its longest in ms."""
    return f"{fmt(m.get('ios_ge_1s'))}/{fmt(m.get('ios_ge_2s'))}, {fmt(m.get('max_ms'))}"


def ratio(a, b):
    return None if a is None or not b else a / b


TARGETS = ("lio", "xt", "tgt")


def pairs(med):
    """The (transport, backstore, cell) measured on any of TARGETS, TCP first."""
    return sorted({(tp, bs, c) for (t, tp, bs, c) in med
                   if t in TARGETS and not scale_job(c)},
                  key=lambda k: (TRANSPORTS.index(k[0]) if k[0] in TRANSPORTS
                                 else len(TRANSPORTS), k))


def table(med):
    lines = [] if not pairs(med) else [
        "| transport | backstore | cell | LIO IOPS | xt IOPS | tgt IOPS | xt/LIO | xt/tgt "
        "| LIO MB/s | xt MB/s | tgt MB/s | LIO p50/p99 us | xt p50/p99 us | tgt p50/p99 us "
        "| LIO CPU us/IO | xt CPU us/IO | tgt CPU us/IO | local IOPS |",
        "|---|---|---|" + "---:|" * 15,
    ]
    for tp, bs, c in pairs(med):
        lio, xt, tgt = (med.get((t, tp, bs, c), {}) for t in TARGETS)
        loc = med.get(("local", "-", "nullb", c), {}) if bs == "nullb" else {}
        rl = ratio(xt.get("iops"), lio.get("iops"))
        rt = ratio(xt.get("iops"), tgt.get("iops"))
        lines.append(
            f"| {tp} | {bs} | {c} | {fmt(lio.get('iops'))} | {fmt(xt.get('iops'))} "
            f"| {fmt(tgt.get('iops'))} | {fmt(rl, digits=2)} | {fmt(rt, digits=2)} "
            f"| {fmt(lio.get('bw'), 1e6, 1)} | {fmt(xt.get('bw'), 1e6, 1)} "
            f"| {fmt(tgt.get('bw'), 1e6, 1)} "
            f"| {lat(lio)} "
            f"| {lat(xt)} "
            f"| {lat(tgt)} "
            f"| {fmt(lio.get('cpu_us_per_io'), digits=1)} | {fmt(xt.get('cpu_us_per_io'), digits=1)} "
            f"| {fmt(tgt.get('cpu_us_per_io'), digits=1)} "
            f"| {fmt(loc.get('iops'))} |")
    bounds = []
    tcp = med.get(("tcp", "-", "-", "iperf3"))
    if tcp and tcp.get("bw"):
        bounds.append(f"Raw TCP on the initiator's path (iperf3): {tcp['bw'] / 1e6:,.0f} MB/s")
    for dev in sorted({tp for (t, tp, _, _) in med if t == "rdma"}):
        wbw = med.get(("rdma", dev, "-", "ib_write_bw-64k"), {})
        rlat = med.get(("rdma", dev, "-", "ib_read_lat-4k"), {})
        if wbw.get("bw") or rlat.get("p50_us"):
            bounds.append(f"RDMA on {dev} (perftest over the RDMA CM): "
                          f"ib_write_bw 64 KiB {fmt(wbw.get('bw'), 1e6)} MB/s, "
                          f"ib_read_lat 4 KiB typical/p99 {fmt(rlat.get('p50_us'), digits=1)}"
                          f"/{fmt(rlat.get('p99_us'), digits=1)} us")
    if bounds:
        lines.append("")
        lines.append("\n".join(bounds))
    errs = sorted({(t, tp, e) for (t, tp, _, _), m in med.items() for e in m["errors"]})
    for t, tp, e in errs:
        lines.append(f"\n{t}{'' if tp == '-' else ' over ' + tp}: {e}")
    return "\n".join(lines) + "\n"


def scale_rows(med):
    """(sessions, cell) of the scale job's fio cells, fewest sessions first."""
    rows = {(int(m.group(2)), c) for (t, tp, bs, c) in med
            for m in [SCALE_CELL.match(c)] if m and t in ("lio", "xt")}
    return sorted(rows)


def scale_table(med):
    rows = scale_rows(med)
    if not rows:
        return ""
    lines = [
        "| sessions | cell | LIO IOPS | xt IOPS | xt/LIO | LIO p50/p99 us | xt p50/p99 us "
        "| LIO CPU us/IO | xt CPU us/IO | LIO IOs >=1 s/>=2 s, max ms "
        "| xt IOs >=1 s/>=2 s, max ms |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, c in rows:
        lio = med.get(("lio", "tcp", "nullb", c), {})
        xt = med.get(("xt", "tcp", "nullb", c), {})
        lines.append(
            f"| {n} | {SCALE_CELL.match(c).group(1)} | {fmt(lio.get('iops'))} "
            f"| {fmt(xt.get('iops'))} | {fmt(ratio(xt.get('iops'), lio.get('iops')), digits=2)} "
            f"| {lat(lio)} "
            f"| {lat(xt)} "
            f"| {fmt(lio.get('cpu_us_per_io'), digits=1)} "
            f"| {fmt(xt.get('cpu_us_per_io'), digits=1)} "
            f"| {stalls(lio)} "
            f"| {stalls(xt)} |")
    for (t, tp, bs, c), m in sorted(med.items()):
        if t == "lio" and c.startswith("idle-sessions-"):
            xt = med.get(("xt", tp, bs, c), {})
            lines.append(
                f"\nMemory per idle session ({c.split('-x')[-1]} sessions logged in,"
                f" target and initiator in one VM; MemFree and Slab, caches dropped):"
                f" LIO {fmt(m.get('mem_kib'))} KiB ({fmt(m.get('slab_kib'))} KiB slab),"
                f" iscsi_xt {fmt(xt.get('mem_kib'))} KiB ({fmt(xt.get('slab_kib'))} KiB slab)")
    lio = med.get(("lio", "tcp", "nullb", "login-chap"), {})
    xt = med.get(("xt", "tcp", "nullb", "login-chap"), {})
    if lio or xt:
        lines.append(f"\nCHAP login + logout per second (open-iscsi, one after another):"
                     f" LIO {fmt(lio.get('logins_per_s'), digits=2)},"
                     f" iscsi_xt {fmt(xt.get('logins_per_s'), digits=2)}")
    return "\n".join(lines) + "\n"


def write_dat(outdir, name, rows):
    """The chart's data file NAME in OUTDIR, a line per row: its path, or
    None when there are no rows."""
    if not rows:
        return None
    dat = os.path.join(outdir, name)
    with open(dat, "w") as f:
        f.write("\n".join(rows) + "\n")
    return dat


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report: no chart ({e})", file=sys.stderr)


def scale_chart(med, outdir):
    rows = []
    for n, c in scale_rows(med):
        if not c.startswith("randread-"):
            continue
        lio = med.get(("lio", "tcp", "nullb", c), {}).get("iops")
        xt = med.get(("xt", "tcp", "nullb", c), {}).get("iops")
        rows.append(f"{n} {lio if lio is not None else 'NaN'} {xt if xt is not None else 'NaN'}")
    dat = write_dat(outdir, "scale.dat", rows)
    if not dat:
        return
    gnuplot(f"""
set terminal pngcairo size 800,450
set output '{os.path.join(outdir, "scale.png")}'
set title 'Sessions at once, 4 KiB random reads at iodepth 8 each: total IOPS' noenhanced
set xlabel 'sessions'
set ylabel 'IOPS'
set logscale x 2
set xrange [0.8:24]
set yrange [0:*]
set grid
set key bottom right noenhanced
plot '{dat}' using 1:2 with linespoints lw 2 title 'LIO', '' using 1:3 with linespoints lw 2 title 'iscsi_xt'
""")


def chart(med, outdir):
    def num(v):
        return "NaN" if v is None else f"{v:.3f}"

    rows = []
    for tp, bs, c in pairs(med):
        lio, xt, tgt = (med.get((t, tp, bs, c), {}) for t in TARGETS)
        ri = ratio(xt.get("iops"), lio.get("iops"))
        rc = ratio(xt.get("cpu_us_per_io"), lio.get("cpu_us_per_io"))
        rt = ratio(xt.get("iops"), tgt.get("iops"))
        # A bar missing where a target has no result (LIO over iWARP).
        if ri is not None or rt is not None:
            rows.append(f'"{tp} {bs} {c}" {num(ri)} {num(rc)} {num(rt)}')
    dat = write_dat(outdir, "chart.dat", rows)
    if not dat:
        return
    gnuplot(f"""
set terminal pngcairo size {max(1100, 300 + 45 * len(rows))},500
set output '{os.path.join(outdir, "chart.png")}'
set title 'iscsi_xt / LIO and iscsi_xt / tgt (1.0 = equal)' noenhanced
set style data histograms
set style fill solid 0.8
set xtics rotate by -30 noenhanced
set rmargin 14
set yrange [0:*]
set grid ytics
set key noenhanced
plot '{dat}' using 2:xtic(1) title 'IOPS, iscsi_xt/LIO', '' using 3 title 'CPU per IO, iscsi_xt/LIO', \
     '' using 4 title 'IOPS, iscsi_xt/tgt', 1 notitle lw 2
""")


def main():
    cells, outdir = sys.argv[1], sys.argv[2]
    med = medians(load(cells))
    with open(os.path.join(outdir, "results.json"), "w") as f:
        json.dump([{"target": t, "transport": tp, "backstore": bs, "cell": c, **m}
                   for (t, tp, bs, c), m in sorted(med.items())], f, indent=1)
    md = table(med)
    scale = scale_table(med)
    if scale:
        md += "\nMany sessions (TCP, one null_blk LUN per session):\n\n" + scale
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(md)
    chart(med, outdir)
    scale_chart(med, outdir)
    print(md)


if __name__ == "__main__":
    main()
