#!/usr/bin/env python3
"""Two perft builds against each other, interleaved: is NEW faster than BASE?

    scripts/lab/ab.py BASE NEW [--rounds N] [--plain] [DEPTH:POSITION ...]

BASE, NEW        two perft binaries (e.g. a default and a native build, or
                 two commits)
--rounds N       rounds per position (default 9); each round runs both, in
                 alternating order
--plain          count with --plain (no leaf-parent shortcut)
DEPTH:POSITION   default: the deep CPW set, 7:startpos 6:kiwipete 7:cpw3
                 6:cpw4 6:cpw5 (any name or FEN `perft count` takes)

Each run is `perft count D POS --threads 1 --no-hash --json`; its time is the
CPU time (user + system) of the whole process from wait4, which other load
on the machine disturbs less than wall time. Per position the script prints
both medians and the median of the per-round ratios BASE / NEW (above 1: NEW
is faster), then the geometric mean of those. The two binaries' node counts
must agree, or the script stops with exit 1. Exit 2 on a usage error.

Example (the default build against the native one, as in
docs/performance.md, "CPU paths"):

    cargo build --release
    RUSTFLAGS="-C target-cpu=native" cargo build --release --target-dir target/native
    scripts/lab/ab.py target/native/release/perft target/release/perft
"""

import json
import math
import os
import statistics
import sys

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import run_timed  # noqa: E402

DEEP_SET = ["7:startpos", "6:kiwipete", "7:cpw3", "6:cpw4", "6:cpw5"]


def usage(message):
    print(f"ab.py: {message}\n(scripts/lab/ab.py --help for usage)", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    rounds, plain, binaries, specs = 9, False, [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            sys.exit(0)
        elif a == "--rounds":
            if i + 1 >= len(argv) or not argv[i + 1].isdigit() or int(argv[i + 1]) < 1:
                usage("--rounds needs a positive integer")
            rounds = int(argv[i + 1])
            i += 1
        elif a == "--plain":
            plain = True
        elif a.startswith("-"):
            usage(f"unknown option {a}")
        elif len(binaries) < 2:
            binaries.append(a)
        else:
            depth, sep, pos = a.partition(":")
            if not sep or not depth.isdigit() or not pos:
                usage(f"{a!r} is not DEPTH:POSITION (e.g. 7:startpos)")
            specs.append((depth, pos))
        i += 1
    if len(binaries) < 2:
        usage("needs two perft binaries, BASE and NEW")
    for b in binaries:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            usage(f"{b}: not an executable file")
    if not specs:
        specs = [tuple(s.split(":", 1)) for s in DEEP_SET]
    return rounds, plain, binaries, specs


def run(binary, depth, pos, plain):
    """(nodes, CPU seconds) of one `perft count`."""
    args = [binary, "count", depth, pos, "--threads", "1", "--no-hash", "--json"]
    if plain:
        args.append("--plain")
    text, seconds, code = run_timed(args)
    if code != 0:
        print(f"ab.py: {' '.join(args)} failed (exit {code})", file=sys.stderr)
        sys.exit(1)
    return json.loads(text)["nodes"], seconds


def main():
    rounds, plain, (base, new), specs = parse(sys.argv[1:])
    log_sum = 0.0
    for depth, pos in specs:
        ratios, t_base, t_new, nodes = [], [], [], set()
        for r in range(rounds):
            order = [(base, t_base), (new, t_new)]
            if r % 2:
                order.reverse()
            for binary, times in order:
                n, t = run(binary, depth, pos, plain)
                nodes.add(n)
                times.append(t)
            ratios.append(t_base[-1] / t_new[-1])
        if len(nodes) != 1:
            print(f"ab.py: {pos} perft {depth}: the binaries disagree: {sorted(nodes)}",
                  file=sys.stderr)
            sys.exit(1)
        m = statistics.median(ratios)
        log_sum += math.log(m)
        print(f"{pos[:24]:<24} D{depth}  base {statistics.median(t_base):8.3f} s  "
              f"new {statistics.median(t_new):8.3f} s  base/new {m:.3f}  "
              f"(rounds {min(ratios):.2f}-{max(ratios):.2f})", flush=True)
    print(f"geometric mean base/new: {math.exp(log_sum / len(specs)):.3f} "
          f"({rounds} rounds, {'plain' if plain else 'perft count'})")


if __name__ == "__main__":
    main()
