#!/usr/bin/env python3
"""Where the time goes on an EPD set, by instruction counts (load-independent).

    scripts/icount_set.py [--perft BIN] [--file EPD] [--below K] [--filter TEXT]

For each line: cachegrind (valgrind, branch simulation on) runs `perft count
D FEN --threads 1 --no-hash` with both counters (the default, with the
leaf-parent shortcut, and `--plain`), D being K plies below the line's deepest
;Dn (default K=1). Printed per position and summed per bin of men (up to 10,
11-16, 17-24, 25-32): instructions (Ir) per leaf and per leaf parent (the
;D(D-1) count), simulated mispredicts per leaf parent, and the plain/default
Ir ratio (above 1: the shortcut saves work). Start-up (a `perft count 1` of
the same position) is subtracted. Needs valgrind; about 2 s per position.
"""

import argparse
import os
import re
import subprocess
import sys

BINS = [(2, 10, "up to 10"), (11, 16, "11-16"), (17, 24, "17-24"), (25, 32, "25-32")]


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
    a = ap.parse_args()
    if not (os.path.isfile(a.perft) and os.access(a.perft, os.X_OK)):
        sys.exit(f"icount_set.py: {a.perft}: not an executable file")
    sums = {}
    print(f"{'id':<10} men  D  Ir/leaf  Ir/parent  mispr/parent  plain Ir/parent  plain/default")
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
        if depth < 2:
            continue
        men = sum(c.isalpha() for c in fen.split()[0])
        base = [a.perft, "count", "1", fen, "--threads", "1", "--no-hash", "-q"]
        ir0, bm0 = cachegrind(base)
        run = [a.perft, "count", str(depth), fen, "--threads", "1", "--no-hash", "-q"]
        ir, bm = cachegrind(run)
        irp, bmp = cachegrind(run + ["--plain"])
        ir, bm, irp, bmp = ir - ir0, bm - bm0, irp - ir0, bmp - bm0
        leaves, parents = counts[depth], counts[depth - 1]
        print(f"{ident:<10} {men:3} {depth:2} {ir / leaves:8.1f} {ir / parents:10.0f} "
              f"{bm / parents:13.2f} {irp / parents:16.0f} {irp / ir:14.3f}", flush=True)
        for lo, hi, name in BINS:
            if lo <= men <= hi:
                s = sums.setdefault(name, [0, 0, 0, 0, 0, 0])
                for i, v in enumerate((ir, bm, irp, bmp, leaves, parents)):
                    s[i] += v
    print("\nper bin (sums): Ir/leaf, Ir/leaf parent, mispredicts/leaf parent, default and plain")
    for _, _, name in BINS:
        if name in sums:
            ir, bm, irp, bmp, leaves, parents = sums[name]
            print(f"  {name:<9} default {ir / leaves:6.1f} Ir/leaf {ir / parents:6.0f} Ir/parent "
                  f"{bm / parents:5.2f} mispr/parent | plain {irp / leaves:6.1f} Ir/leaf "
                  f"{irp / parents:6.0f} Ir/parent {bmp / parents:5.2f} mispr/parent")


if __name__ == "__main__":
    main()
