#!/usr/bin/env python3
"""Two perft builds against each other per bin of the speed set, interleaved.

    scripts/lab/ab_bins.py BASE NEW [--rounds N] [--plain] [--bins LIST]
                       [--file EPD] [--below K]

BASE, NEW    two perft binaries (e.g. two commits)
--rounds N   rounds (default 3); each round times both builds on every bin,
             in alternating order
--plain      count with --plain (no leaf-parent shortcut)
--bins LIST  which bins of men, numbered 1-4 (up to 10, 11-16, 17-24,
             25-32), comma-separated (default 1,2,3,4)
--file EPD   the set (default positions/speed.epd)
--below K    each position counted K plies below its deepest count (default
             0: the timed depth; the count must be in the file)

One bin is one `perft suite` process over the bin's positions, each checked at
one depth (`--threads 1 --no-hash`), timed by its CPU time (user + system,
from wait4). Fewer, longer processes than scripts/lab/ab.py's one per position,
so a bin's time is steadier than the sum of its positions'. Per bin it prints
the median CPU time of each build, the median of the per-round ratios BASE /
NEW (above 1: NEW is faster) and the ratio of the fastest rounds. A failed
count stops the script with exit 1; a usage error exits 2.
"""

import argparse
import os
import statistics
import sys
import tempfile

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import BINS, EpdError, men, read_epd, run_timed, write_epd  # noqa: E402

def fail(message, code):
    print(f"ab_bins.py: {message}", file=sys.stderr)
    sys.exit(code)


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--bins", default="1,2,3,4")
    ap.add_argument("--file", default="positions/speed.epd")
    ap.add_argument("--below", type=int, default=0)
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(0 if e.code == 0 else 2)
    for b in (a.base, a.new):
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            fail(f"{b}: not an executable file", 2)
    if a.rounds < 1 or a.below < 0:
        fail("--rounds must be at least 1 and --below at least 0", 2)
    try:
        bins = sorted({int(x) for x in a.bins.split(",")})
    except ValueError:
        fail(f"--bins {a.bins}: not a comma-separated list of 1-4", 2)
    if not bins or bins[0] < 1 or bins[-1] > 4:
        fail(f"--bins {a.bins}: bins are numbered 1-4", 2)
    try:
        positions = read_epd(a.file)
    except (EpdError, OSError) as e:
        fail(str(e), 2)

    with tempfile.TemporaryDirectory(prefix="ab_bins.") as work:
        files = {}
        for b in bins:
            lo, hi, _ = BINS[b - 1]
            members = [p for p in positions if lo <= men(p["fen"]) <= hi]
            if not members:
                fail(f"bin {b}: no position of {a.file} in it", 2)
            files[b] = os.path.join(work, f"bin{b}.epd")
            missing = write_epd(files[b], members, a.below)
            if missing:
                fail(f"{missing[0]}: no count {a.below} plies below its deepest (--below)", 2)

        def timed(binary, b):
            args = [binary, "suite", files[b], "--threads", "1", "--no-hash", "-q"]
            if a.plain:
                args.append("--plain")
            text, t, code = run_timed(args)
            if code != 0 or "PASS" not in text:
                fail(f"{binary} failed on bin {b} (exit {code}): {text.strip()[-300:]}", 1)
            return t

        times = {b: ([], []) for b in bins}
        for r in range(a.rounds):
            for b in bins:
                order = [0, 1] if r % 2 == 0 else [1, 0]
                for i in order:
                    times[b][i].append(timed((a.base, a.new)[i], b))
            print(f"round {r + 1}: " + "  ".join(
                f"bin {b} {times[b][0][-1]:.2f}/{times[b][1][-1]:.2f} s" for b in bins),
                file=sys.stderr, flush=True)
        print(f"BASE {a.base}\nNEW  {a.new}\n{a.rounds} rounds, CPU seconds per bin"
              f"{' (--plain)' if a.plain else ''}")
        for b in bins:
            base, new = times[b]
            ratio = statistics.median(x / y for x, y in zip(base, new))
            print(f"bin {b} ({BINS[b - 1][2]:>8} men): BASE {statistics.median(base):7.2f}  "
                  f"NEW {statistics.median(new):7.2f}  BASE/NEW {ratio:.3f}  "
                  f"fastest rounds {min(base) / min(new):.3f}")


if __name__ == "__main__":
    main()
