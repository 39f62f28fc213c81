#!/usr/bin/env python3
"""Instructions and instructions per CPU second: our build against a peer.

    scripts/lab/irate.py --peer PATH [--perft BIN] [--file EPD] [--filter TEXT]
                     [--ids ID,ID,...] [--below K] [--rounds N] [--group KIND]

--peer PATH    a peer that valgrind can run, called `PATH "FEN" D` and counting
               perft 1..D: Gigantua built without AVX-512, which valgrind
               cannot run (`clang++ -std=c++20 -O3 -march=native
               -mno-avx512f`; on an Intel Sapphire Rapids-class Xeon it
               timed within 2 % of the AVX-512 build)
--perft BIN    our build (default target/release/perft)
--file EPD     positions (default positions/speed.epd); each line's deepest
               ;Dn is the timed depth
--filter TEXT  only lines containing TEXT; --ids: only these ids
--below K      count instructions K plies below the timed depth (default 2,
               which keeps the side to move at each ply) and scale them to
               the timed depth by the node counts (ours: perft D over perft
               D-K; the peer: the sums of perft 2..D and 2..D-K); 0 counts
               at the timed depth itself (about 50 times slower)
--rounds N     timed runs per program and position (default 5; the median)
--group KIND   geometric means per bin of men (`bins`, the default) or per
               class, the first item of each line's c0 comment (`class`: the
               signature classes of positions/endings.epd)

Why: a program can be slower with fewer instructions. This splits each
speed ratio into its factors,

    ours / peer speed = (peer Ir / our Ir) x (our Ir per second / peer's) x credit,

credit being perft D over the sum of perft 1..D (the peer counts them all),

so a gap can be told apart as more work or slower work. Instructions are
valgrind's (cachegrind, start-up subtracted: a depth-1 run of the same
position), and so are the mispredicts beside them (its branch simulation,
scaled the same way: a simple predictor's, not a CPU's, yet a lower rate
often comes with more of them); CPU time is user + system of the whole
process at the timed depth. Both programs are timed in the same round,
alternating; the peer is credited with the sum of its counts 1..D, as its
instruction count covers them all (scripts/lab/peers.py instead times depth
D's share of the peer's run by its own clock, so this speed column can
differ from peers.py's). Per position, and as geometric means per bin of
men or per class: instructions (G), CPU seconds, G instructions per second,
the three ratios and the mispredicts' ratio. Exit 1 when a program fails or
a count differs from the EPD's, 2 on a usage error.
"""

import argparse
import os
import json
import re
import shutil
import statistics
import subprocess
import sys

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import EpdError, geomean, groups, men, read_epd, run_timed, signature_class  # noqa: E402


def fail(message, code=1):
    print(f"irate.py: {message}", file=sys.stderr)
    sys.exit(code)


def instructions(args):
    """Instructions and simulated mispredicts (conditional and indirect) of one run."""
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
         "--cachegrind-out-file=/dev/null"] + args,
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ir = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
    mispredicts = re.search(r"Mispredicts:\s+([\d,]+)", out.stderr)
    if out.returncode != 0 or not ir or not mispredicts:
        fail(f"valgrind {' '.join(args)}: exit {out.returncode}")
    return tuple(int(m.group(1).replace(",", "")) for m in (ir, mispredicts))


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("--peer", required=True)
    ap.add_argument("--perft", default="target/release/perft")
    ap.add_argument("--file", default="positions/speed.epd")
    ap.add_argument("--filter")
    ap.add_argument("--ids")
    ap.add_argument("--below", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--group", choices=["bins", "class"], default="bins")
    a = ap.parse_args()
    for path in (a.peer, a.perft):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            fail(f"{path}: not an executable file", 2)
    if a.below < 0 or a.rounds < 1:
        fail("--below must be at least 0 and --rounds at least 1", 2)
    try:
        positions = read_epd(a.file, a.filter)
    except (EpdError, OSError) as e:
        fail(str(e), 2)
    if a.ids:
        wanted = a.ids.split(",")
        unknown = [i for i in wanted if i not in {p["id"] for p in positions}]
        if unknown:
            fail(f"--ids: not in {a.file}: {', '.join(unknown)}", 2)
        positions = [p for p in positions if p["id"] in wanted]
    if shutil.which("valgrind") is None:
        fail("valgrind is not installed (apt-get install valgrind)")

    def ours_args(fen, depth):
        return [a.perft, "count", str(depth), fen, "--threads", "1", "--no-hash", "--json"]

    def peer_args(fen, depth):
        return [a.peer, fen, str(depth)]

    for p in positions:
        d = p["depth"]
        if d - a.below < 2 or any(i not in p["counts"] for i in range(1, d + 1)):
            fail(f"{p['id']}: needs every ;Dn from 1 to {d} (and --below at most {d - 2})", 2)

    rows = []
    print(f"{'position':<10} {'men':>3} {'D':>2}  {'ours G Ir':>9} {'s':>6} {'G/s':>5}"
          f"  {'peer G Ir':>9} {'s':>6} {'G/s':>5}  {'Ir o/p':>6} {'rate o/p':>8} {'speed o/p':>9}"
          f"  {'mispr o/p':>9}")
    for p in positions:
        fen, c, d = p["fen"], p["counts"], p["depth"]
        k = d - a.below
        (ours_ir, ours_mis), (ours_ir1, ours_mis1) = (
            instructions(ours_args(fen, k)), instructions(ours_args(fen, 1)))
        (peer_ir, peer_mis), (peer_ir1, peer_mis1) = (
            instructions(peer_args(fen, k)), instructions(peer_args(fen, 1)))
        ours_scale = c[d] / c[k]
        peer_scale = sum(c[i] for i in range(2, d + 1)) / sum(c[i] for i in range(2, k + 1))
        ours_ir, ours_mis = (ours_ir - ours_ir1) * ours_scale, (ours_mis - ours_mis1) * ours_scale
        peer_ir, peer_mis = (peer_ir - peer_ir1) * peer_scale, (peer_mis - peer_mis1) * peer_scale
        if min(ours_mis, peer_mis) <= 0:
            fail(f"{p['id']}: no mispredicts beyond start-up at depth {k}; use a smaller --below")
        times = {"ours": [], "peer": []}
        for r in range(a.rounds):
            order = ["ours", "peer"] if r % 2 == 0 else ["peer", "ours"]
            for name in order:
                args = ours_args(fen, d) if name == "ours" else peer_args(fen, d)
                text, t, code = run_timed(args)
                if code != 0:
                    fail(f"{' '.join(args)}: exit {code}")
                if name == "ours":
                    got = json.loads(text)["nodes"]
                    if got != c[d]:
                        fail(f"{p['id']}: ours perft {d} = {got}, EPD {c[d]}")
                else:
                    found = {int(x): int(y) for x, y in re.findall(r"Perft (\d+): (\d+)", text)}
                    if found.get(d) != c[d]:
                        fail(f"{p['id']}: peer perft {d} = {found.get(d)}, EPD {c[d]}")
                times[name].append(t)
        to, tp = statistics.median(times["ours"]), statistics.median(times["peer"])
        credited = sum(c[i] for i in range(1, d + 1))
        row = {
            "id": p["id"], "men": men(fen), "depth": d,
            "class": signature_class(p["comment"]),
            "ir": ours_ir / peer_ir,
            "mispredicts": ours_mis / peer_mis,
            "rate": (ours_ir / to) / (peer_ir / tp),
            "speed": (c[d] / to) / (credited / tp),
        }
        rows.append(row)
        print(f"{p['id']:<10} {row['men']:>3} {d:>2}  {ours_ir / 1e9:>9.2f} {to:>6.3f} "
              f"{ours_ir / to / 1e9:>5.1f}  {peer_ir / 1e9:>9.2f} {tp:>6.3f} {peer_ir / tp / 1e9:>5.1f}"
              f"  {row['ir']:>6.2f} {row['rate']:>8.2f} {row['speed']:>9.2f}"
              f"  {row['mispredicts']:>9.2f}", flush=True)
    grouped = groups(rows, a.group)
    print(f"\ngeometric means per {'class' if a.group == 'class' else 'bin of men'}:"
          " Ir, rate, speed and mispredicts, ours/peer")
    width = max(len(name) for name, _ in grouped)
    for name, sel in grouped:
        print(f"  {name:<{width}} {len(sel):>2} positions  Ir {geomean([r['ir'] for r in sel]):.2f}"
              f"  rate {geomean([r['rate'] for r in sel]):.2f}"
              f"  speed {geomean([r['speed'] for r in sel]):.2f}"
              f"  mispredicts {geomean([r['mispredicts'] for r in sel]):.2f}")


if __name__ == "__main__":
    main()
