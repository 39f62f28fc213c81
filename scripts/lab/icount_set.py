#!/usr/bin/env python3
"""Where the time goes on an EPD set, by instruction counts (load-independent).

    scripts/lab/icount_set.py [--perft BIN] [--file EPD] [--below K] [--filter TEXT]
    scripts/lab/icount_set.py --against NEW [--perft BIN] [--jobs J] ...

For each line: cachegrind (valgrind, branch simulation on) runs `perft count
D FEN --threads 1 --no-hash` with both counters (`--shortcut`, the
leaf-parent shortcut, and `--plain`), D being K plies below the line's
deepest ;Dn (default K=1). Printed per position and summed per bin of men (up
to 10, 11-16, 17-24, 25-32): instructions (Ir) per leaf and per leaf parent
(the ;D(D-1) count), simulated mispredicts per leaf parent, and the
plain/shortcut Ir ratio (above 1: the shortcut saves work). Start-up (a
`perft count 1` of the same position) is subtracted. Needs valgrind; about 2 s
per position.

With --against NEW, compares two builds instead (the shortcut counter of
each): per position and as geometric means per bin, NEW's Ir and
mispredicts over BIN's, and an estimate of the cycle ratio (Ir/3 + 15 per
mispredict; a ranking aid, not a timing), J positions at a time.

Both modes name the counter (`--shortcut`): from depth 6 the default counter
times the two on samples and runs the faster, and under valgrind that choice
can flip between runs and builds (speed-07 at depth 6: 1.5x the instructions
when one build chose the plain loop).
"""

import math
from concurrent.futures import ThreadPoolExecutor

import argparse
import os
import re
import subprocess
import sys

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import BINS, men  # noqa: E402


def cachegrind(args):
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
         "--cachegrind-out-file=/dev/null"] + args,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True).stderr
    ir = int(re.search(r"I\s+refs:\s+([\d,]+)", out).group(1).replace(",", ""))
    bm = int(re.search(r"Mispredicts:\s+([\d,]+)", out).group(1).replace(",", ""))
    return ir, bm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perft", default="target/release/perft")
    ap.add_argument("--file", default="positions/speed.epd")
    ap.add_argument("--below", type=int, default=1)
    ap.add_argument("--filter")
    ap.add_argument("--against", metavar="NEW")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args()
    for path in [a.perft] + ([a.against] if a.against else []):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            sys.exit(f"icount_set.py: {path}: not an executable file")
    if a.against:
        compare(a)
        return
    sums = {}
    print(f"{'id':<10} men  D  Ir/leaf  Ir/parent  mispr/parent  plain Ir/parent  plain/shortcut")
    for ident, fen, n_men, depth, counts in positions(a):
        base = [a.perft, "count", "1", fen, "--threads", "1", "--no-hash", "-q"]
        ir0, bm0 = cachegrind(base)
        run = [a.perft, "count", str(depth), fen, "--threads", "1", "--no-hash", "-q"]
        ir, bm = cachegrind(run + ["--shortcut"])
        irp, bmp = cachegrind(run + ["--plain"])
        ir, bm, irp, bmp = ir - ir0, bm - bm0, irp - ir0, bmp - bm0
        leaves, parents = counts[depth], counts[depth - 1]
        print(f"{ident:<10} {n_men:3} {depth:2} {ir / leaves:8.1f} {ir / parents:10.0f} "
              f"{bm / parents:13.2f} {irp / parents:16.0f} {irp / ir:14.3f}", flush=True)
        for lo, hi, name in BINS:
            if lo <= n_men <= hi:
                s = sums.setdefault(name, [0, 0, 0, 0, 0, 0])
                for i, v in enumerate((ir, bm, irp, bmp, leaves, parents)):
                    s[i] += v
    print("\nper bin (sums): Ir/leaf, Ir/leaf parent, mispredicts/leaf parent, shortcut and plain")
    for _, _, name in BINS:
        if name in sums:
            ir, bm, irp, bmp, leaves, parents = sums[name]
            print(f"  {name:<9} shortcut {ir / leaves:6.1f} Ir/leaf {ir / parents:6.0f} Ir/parent "
                  f"{bm / parents:5.2f} mispr/parent | plain {irp / leaves:6.1f} Ir/leaf "
                  f"{irp / parents:6.0f} Ir/parent {bmp / parents:5.2f} mispr/parent")


def positions(a):
    """(id, FEN, men, depth, counts) for each line of --file that --filter
    keeps, at --below plies under its deepest count (at least 2)."""
    for line in open(a.file):
        line = line.strip()
        if not line or line.startswith("#") or (a.filter and a.filter not in line):
            continue
        fields = line.split(";")
        fen = " ".join(fields[0].split()[:6])
        counts = {int(m.group(1)): int(m.group(2))
                  for m in (re.fullmatch(r"D(\d+)\s+(\d+)", f.strip()) for f in fields[1:]) if m}
        ident = next((f.strip()[3:].strip().strip('"') for f in fields[1:]
                      if f.strip().startswith("id ")), "?")
        depth = max(counts) - a.below
        if depth >= 2:
            yield ident, fen, men(fen), depth, counts


def compare(a):
    """--against: NEW over BIN, Ir, mispredicts and the cycle estimate."""
    def costs(binary, fen, depth):
        args = ["--threads", "1", "--no-hash", "-q"]
        ir0, bm0 = cachegrind([binary, "count", "1", fen] + args)
        ir, bm = cachegrind([binary, "count", str(depth), fen, "--shortcut"] + args)
        return ir - ir0, bm - bm0

    def one(p):
        ident, fen, n_men, depth, _ = p
        (ir, bm), (irn, bmn) = costs(a.perft, fen, depth), costs(a.against, fen, depth)
        return ident, n_men, depth, irn / ir, bmn / max(bm, 1), (irn / 3 + 15 * bmn) / (ir / 3 + 15 * bm)

    print(f"{'id':<10} men  D  Ir new/old  mispredicts new/old  estimate new/old")
    per_bin = {}
    with ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for ident, n_men, depth, ir, bm, est in pool.map(one, positions(a)):
            print(f"{ident:<10} {n_men:3} {depth:2} {ir:10.3f} {bm:20.3f} {est:17.3f}", flush=True)
            name = next(n for lo, hi, n in BINS if lo <= n_men <= hi)
            per_bin.setdefault(name, []).append((ir, bm, est))
    print("\nper bin (geometric means of the ratios)")
    for _, _, name in BINS:
        if name in per_bin:
            v = per_bin[name]
            g = [math.exp(sum(math.log(x[i]) for x in v) / len(v)) for i in range(3)]
            print(f"  {name:<9} Ir {g[0]:.3f}  mispredicts {g[1]:.3f}  estimate {g[2]:.3f}")


if __name__ == "__main__":
    main()
