#!/usr/bin/env python3
"""Turn `perft bench --threads 1,2,... --json` output into an SVG chart.

    perft bench --threads 1,2,4 --json > scaling.json
    python3 scripts/plot_scaling.py scaling.json scaling.svg

Plots total Mnps against threads (one line per hash setting, when the runs
differ in it) with the ideal linear scaling from the first run as a dashed
line and, for a bench run with `--ceiling`, the ceiling: what as many
independent single-thread counters count together at each thread count
(the machine's limit), dotted. The gap between the dashed and dotted lines
is the machine's (all-core clock, shared caches and memory), the gap
between the dotted line and a measured one is the program's. Standard
library only: the SVG is written by hand, so no plotting package is
needed. Reads stdin when the input is '-'.
"""

import json
import sys
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 700, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 230, 60, 60
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def nice_step(span, ticks=5):
    """A round tick step (1, 2 or 5 times a power of ten) for `span`."""
    raw = span / ticks
    power = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1
    while power > raw:
        power /= 10
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def load(path):
    text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    report = json.loads(text)
    if report.get("kind") != "bench":
        sys.exit(f"error: {path}: not a 'perft bench --json' report (kind={report.get('kind')!r})")
    if report.get("schema_version") != 1:
        sys.exit(f"error: {path}: schema_version {report.get('schema_version')!r}, expected 1")
    if not report.get("runs"):
        sys.exit(f"error: {path}: no runs")
    return report


def series(report):
    """Runs grouped by hash setting: {label: [(threads, mnps), ...]}."""
    groups = {}
    for run in report["runs"]:
        label = "hash " + run["hash"] if run.get("hash") else "measured"
        groups.setdefault(label, []).append((run["threads"], run["mnps"]))
    return {k: sorted(v) for k, v in groups.items()}


def ceiling(report):
    """[(threads, ceiling Mnps), ...] of the runs with a ceiling (--ceiling)."""
    points = {}
    for run in report["runs"]:
        c = run.get("ceiling")
        if c:
            points[run["threads"]] = c["mnps"]
    return sorted(points.items())


def svg(report):
    groups = series(report)
    first = report["runs"][0]
    ceiling_pts = ceiling(report)
    ideal_per_thread = first["mnps"] / first["threads"]
    if first.get("ceiling"):
        # With a ceiling, linear scaling starts from one counter alone.
        ideal_per_thread = first["ceiling"]["one_mnps"]
    max_threads = max(t for pts in groups.values() for t, _ in pts)
    max_mnps = max(
        [m for pts in groups.values() for _, m in pts]
        + [m for _, m in ceiling_pts]
        + [ideal_per_thread * max_threads]
    )
    step = nice_step(max_mnps)
    y_max = step * (int(max_mnps / step) + 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(t):
        return LEFT + (t / max_threads) * plot_w

    def y(m):
        return TOP + plot_h - (m / y_max) * plot_h

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
    ]
    machine = report.get("machine", {})
    title = f"perft bench: Mnps vs threads ({machine.get('cpu', 'unknown CPU')}, {machine.get('logical_cpus', '?')} logical CPUs)"
    out.append(f'<text x="{WIDTH / 2}" y="24" text-anchor="middle" font-size="13">{escape(title)}</text>')
    # Warnings that make the timings doubtful are shown on the chart itself.
    doubtful = [w["message"] for w in report.get("warnings", []) if w.get("kind") in ("busy_machine", "debug_build", "short_run")]
    for i, message in enumerate(doubtful):
        out.append(
            f'<text x="{WIDTH / 2}" y="{40 + 13 * i}" text-anchor="middle" font-size="10" fill="#b00">'
            f"warning: {escape(message)}</text>"
        )
    # Grid and axes.
    v = 0.0
    while v <= y_max + 1e-9:
        out.append(f'<line x1="{LEFT}" y1="{y(v):.1f}" x2="{LEFT + plot_w}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
        v += step
    for t in sorted({t for pts in groups.values() for t, _ in pts}):
        out.append(f'<line x1="{x(t):.1f}" y1="{TOP + plot_h}" x2="{x(t):.1f}" y2="{TOP + plot_h + 5}" stroke="black"/>')
        out.append(f'<text x="{x(t):.1f}" y="{TOP + plot_h + 20}" text-anchor="middle">{t}</text>')
    out.append(f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" stroke="black"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 18}" text-anchor="middle">threads</text>')
    out.append(
        f'<text x="18" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {TOP + plot_h / 2})">Mnps (bulk-counted leaves per second)</text>'
    )
    # Ideal scaling from the first run.
    out.append(
        f'<line x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(max_threads):.1f}" '
        f'y2="{y(ideal_per_thread * max_threads):.1f}" stroke="#888" stroke-dasharray="5,4"/>'
    )
    legend = [("ideal (linear)", "#888", True)]
    if ceiling_pts:
        path = " ".join(f"{x(t):.1f},{y(m):.1f}" for t, m in ceiling_pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="#555" stroke-width="2" stroke-dasharray="2,3"/>')
        for t, m in ceiling_pts:
            out.append(f'<circle cx="{x(t):.1f}" cy="{y(m):.1f}" r="3" fill="#555"/>')
        legend.append(("ceiling (N counters)", "#555", "2,3"))
    for i, (label, pts) in enumerate(groups.items()):
        colour = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{x(t):.1f},{y(m):.1f}" for t, m in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for t, m in pts:
            out.append(f'<circle cx="{x(t):.1f}" cy="{y(m):.1f}" r="4" fill="{colour}"/>')
            out.append(
                f'<text x="{x(t) - 8:.1f}" y="{y(m) - 8:.1f}" text-anchor="end" fill="{colour}">{m:.0f}</text>'
            )
        legend.append((label, colour, False))
    for i, (label, colour, dashed) in enumerate(legend):
        ly = TOP + 10 + i * 20
        lx = LEFT + plot_w + 15
        pattern = "5,4" if dashed is True else dashed
        dash = f' stroke-dasharray="{pattern}"' if pattern else ""
        out.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 25}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{lx + 32}" y="{ly + 4}">{escape(label)}</text>')
    sig = report.get("signature_str", str(report.get("signature", "")))
    depth_set = report.get("depth_set")
    out.append(f'<text x="{LEFT + plot_w + 15}" y="{TOP + 10 + len(legend) * 20 + 10}" font-size="10">signature {sig}</text>')
    if depth_set:
        out.append(f'<text x="{LEFT + plot_w + 15}" y="{TOP + 10 + len(legend) * 20 + 24}" font-size="10">{escape(depth_set)} depth set</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: plot_scaling.py BENCH.json|- OUT.svg")
    report = load(argv[1])
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(svg(report))


if __name__ == "__main__":
    main(sys.argv)
