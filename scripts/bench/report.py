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
ratios to LIO for IOPS and for CPU cost per IO, and to tgt for IOPS.
The scale job's cells (sessions at once, idle sessions' memory, CHAP
logins) get a table of their own, and scale.png the IOPS per session
count. So does the noisy-neighbour job (a flooding and a light
session on one LUN whose backend slows down and recovers): its table
has each phase's figures, noisy.png the light session's latency, both
sessions' IOPS and the windows over time (round 1's series, from
OUTDIR/noisy/). With bench.sh -C, cost.md: what an IO of each matrix
cell cost each target, counted rather than timed (context switches,
softirqs, work items run, slab allocations per IO; for iscsi_xt also the
bytes its CPU copied per payload byte and the cache lines per IO).
"""

import json
import os
import re
import statistics
import subprocess
import sys

METRICS = ("iops", "bw", "p50_us", "p99_us", "cpu_us_per_io", "ios_ge_1s",
           "ios_ge_2s", "max_ms", "mem_kib", "slab_kib", "logins_per_s")
PHASES = (("fast", "before"), ("slow", "slow"), ("rec", "after"))
# bench.sh -C's counts per IO (guest.sh, cost_per_io()).
COST_METRICS = ("cost_ctx_per_io", "cost_softirq_per_io", "cost_work_per_io",
                "cost_slab_per_io", "cost_xt_cmds_per_io", "cost_xt_lines_per_io",
                "cost_xt_copied_per_byte")
NOISY_METRICS = tuple(f"{k}_{p}{u}" for p, _ in PHASES for k, u in (
    ("light_p50", "_us"), ("light_p99", "_us"), ("light_iops", ""),
    ("flood_iops", ""), ("win_flood", ""), ("win_flood", "_min"),
    ("room_flood", ""), ("win_light", ""))) + ("total_iops_slow", "slow_s")
TRANSPORTS = ("tcp", "iser", "iwarp")
SCALE_CELL = re.compile(r"^([a-z]+-[0-9a-z]+-qd[0-9]+)-x([0-9]+)$")


def scale_job(cell):
    """Whether CELL is one of the scale job's."""
    return bool(SCALE_CELL.match(cell)) or cell.startswith("idle-sessions-") \
        or cell == "login-chap"


def matrix_cell(cell):
    """Whether CELL is one of the fio matrix's."""
    return not scale_job(cell) and cell != "noisy"


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
        for k in METRICS + NOISY_METRICS + COST_METRICS:
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
                   if t in TARGETS and matrix_cell(c)},
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


def cost_table(med):
    """bench.sh -C's table: a row per matrix cell and target, its counts
    per IO; iscsi_xt's own (copied bytes per payload byte, cache lines and
    commands per IO) "-" for the others."""
    names = {"lio": "LIO", "xt": "iscsi_xt", "tgt": "tgt"}
    lines = []
    for tp, bs, c in pairs(med):
        for t in TARGETS:
            m = med.get((t, tp, bs, c), {})
            if m.get("cost_ctx_per_io") is None:
                continue
            lines.append(
                f"| {tp} | {bs} | {c} | {names[t]} "
                f"| {fmt(m.get('cost_ctx_per_io'), digits=2)} "
                f"| {fmt(m.get('cost_softirq_per_io'), digits=2)} "
                f"| {fmt(m.get('cost_work_per_io'), digits=2)} "
                f"| {fmt(m.get('cost_slab_per_io'), digits=2)} "
                f"| {fmt(m.get('cost_xt_copied_per_byte'), digits=3)} "
                f"| {fmt(m.get('cost_xt_lines_per_io'), digits=2)} "
                f"| {fmt(m.get('cost_xt_cmds_per_io'), digits=2)} |")
    if not lines:
        return ""
    return "\n".join([
        "| transport | backstore | cell | target | ctx switches/IO | softirqs/IO "
        "| work items/IO | slab allocs/IO | copied B/payload B | lines/IO | cmds/IO |",
        "|---|---|---|---|" + "---:|" * 7] + lines) + "\n"


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


def noisy_table(med):
    lio = med.get(("lio", "tcp", "noisy", "noisy"))
    xt = med.get(("xt", "tcp", "noisy", "noisy"))
    if not lio and not xt:
        return ""
    lio, xt = lio or {}, xt or {}

    def row(what, key, digits=0, both=True):
        r = ratio(xt.get(key), lio.get(key)) if both else None
        return (f"| {what} | {fmt(lio.get(key), digits=digits)} "
                f"| {fmt(xt.get(key), digits=digits)} | {fmt(r, digits=2)} |")

    lines = ["| phase: figure | LIO | iscsi_xt | xt/LIO |",
             "|---|---:|---:|---:|"]
    for p, name in PHASES:
        lines += [row(f"{name}: light p50 us", f"light_p50_{p}_us"),
                  row(f"{name}: light p99 us", f"light_p99_{p}_us"),
                  row(f"{name}: light IOPS", f"light_iops_{p}"),
                  row(f"{name}: flood IOPS", f"flood_iops_{p}"),
                  row(f"{name}: flood window (median)", f"win_flood_{p}"),
                  row(f"{name}: flood window (least)", f"win_flood_{p}_min"),
                  row(f"{name}: room MaxCmdSN leaves the flood (median)",
                      f"room_flood_{p}")]
    lines.append(row("slow: both sessions' IOPS", "total_iops_slow"))
    for t, m in (("LIO", lio), ("iscsi_xt", xt)):
        for e in m.get("errors", []):
            lines.append(f"\n{t}: {e}")
    return "\n".join(lines) + "\n"


def noisy_chart(med, outdir):
    """noisy.png from round 1's series of LIO and iscsi_xt."""
    series = {t: os.path.join(outdir, "noisy", f"{t}-r1.tsv") for t in ("lio", "xt")}
    series = {t: p for t, p in series.items() if os.path.exists(p)}
    if not series:
        return
    slow = (med.get(("xt", "tcp", "noisy", "noisy")) or
            med.get(("lio", "tcp", "noisy", "noisy")) or {}).get("slow_s") or 0
    names = {"lio": "LIO", "xt": "iscsi_xt"}

    def plot(col, what):
        return ", ".join(f"'{p}' using 1:{col} with linespoints lw 2 title '{names[t]}{what}'"
                         for t, p in series.items())

    gnuplot(f"""
set terminal pngcairo size 900,900
set output '{os.path.join(outdir, "noisy.png")}'
set lmargin at screen 0.1
set rmargin at screen 0.72
set multiplot layout 3,1 title "Noisy neighbour: a flood (4 KiB writes, iodepth 128) and a light session\\n(4 KiB reads, iodepth 1) on one LUN; the backend is slow in the grey band" noenhanced
set object 1 rect from 0, graph 0 to {slow}, graph 1 fc rgb '#e8e8e8' fs solid behind
set grid
set key outside right top noenhanced
set xlabel 's from the backend slowing down'
set ylabel 'ms' noenhanced
set logscale y
set title 'Light session: p99 latency per second' noenhanced
plot {plot(3, "").replace("using 1:3", "using 1:($3/1000)")}
set ylabel 'IOPS' noenhanced
set title 'IOPS per second: flood (solid) and light (dashed)' noenhanced
plot {plot(5, " flood")}, {plot(4, " light").replace("lw 2", "lw 1 dt 2")}
unset logscale y
set ylabel 'commands' noenhanced
set title "The flood's command window (CmdSN/WR) and the room MaxCmdSN leaves it (dashed)" noenhanced
plot {plot(6, " window")}, {plot(7, " room").replace("lw 2", "lw 1 dt 2")}
unset multiplot
""")


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
    noisy = noisy_table(med)
    if noisy:
        md += ("\nNoisy neighbour (TCP; one LUN shared by a flood and a light session;"
               " backend fast, slow, then fast again):\n\n" + noisy)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(md)
    cost = cost_table(med)
    if cost:
        with open(os.path.join(outdir, "cost.md"), "w") as f:
            f.write(cost)
        md += "\nWhat an IO costs, counted (bench.sh -C; cost.md):\n\n" + cost
    chart(med, outdir)
    scale_chart(med, outdir)
    noisy_chart(med, outdir)
    print(md)


if __name__ == "__main__":
    main()
