#!/usr/bin/env python3
"""Nodes to reach each bench position's depth when searched in chunks.

For every position of positions/search_bench.epd, one `perft uci` session
(Threads 1) sends `position fen ...` and then `go nodes CHUNK` repeatedly
(what a GUI does when it gives an engine a node budget per move) until a `go` reports an iteration at the
position's depth (`acd`). The cost is CHUNK nodes per `go` before that one
plus the nodes of that `go` up to that iteration. It is compared with one
uninterrupted `go depth D` in a fresh session: nodes, best move (the first
move of the depth-D PV) and score. Done twice: with restartable nodes (the
default: each `go` continues the search the previous one stopped) and with
`setoption name Restart value false` (each `go` starts over; only the TT is
kept).

    scripts/lab/search_chunks.py [CHUNK [MAX_GOS]]   (defaults 20000 and 1000)

PERFT sets the binary (default target/release/perft). Single-threaded and
deterministic. Prints a Markdown table; exits 1 if a position's cost with
restart on is above 1.10x the uninterrupted nodes or its best move or score
differs.
"""
import os
import re
import subprocess
import sys



def positive(text, what):
    """`text` as a positive integer, or exit 2 naming `what`."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        print(f"search_chunks.py: {what} must be a positive integer, not {text!r}", file=sys.stderr)
        sys.exit(2)
    return value


if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0)
if len(sys.argv) > 3:
    print("usage: scripts/lab/search_chunks.py [CHUNK [MAX_GOS]]", file=sys.stderr)
    sys.exit(2)
chunk = positive(sys.argv[1], "CHUNK") if len(sys.argv) > 1 else 20000
max_gos = positive(sys.argv[2], "MAX_GOS") if len(sys.argv) > 2 else 1000
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
perft = os.environ.get("PERFT", os.path.join(root, "target/release/perft"))
LIMIT = 1.10


def session(fen, gos, restart=True):
    text = "uci\nsetoption name Threads value 1\n"
    text += f"setoption name Restart value {'true' if restart else 'false'}\n"
    text += f"ucinewgame\nposition fen {fen}\n" + "".join(g + "\n" for g in gos) + "quit\n"
    out = subprocess.run([perft, "uci"], input=text, capture_output=True, text=True, check=True).stdout
    replies, infos = [], []
    for line in out.splitlines():
        if line.startswith("info depth"):
            infos.append(line)
        elif line.startswith("bestmove"):
            replies.append((infos, line.split()[1]))
            infos = []
    return replies


def field(line, name):
    words = line.split()
    i = words.index(name)
    return words[i + 1] if name != "score" else " ".join(words[i + 1 : i + 3])


def chunked(fen, depth, restart):
    """(cost in nodes, gos, best, score) or None if not reached."""
    total = 0
    for k, (infos, _) in enumerate(session(fen, [f"go nodes {chunk}"] * max_gos, restart)):
        hit = [l for l in infos if int(field(l, "depth")) >= depth]
        if hit:
            total += int(field(hit[0], "nodes"))
            return total, k + 1, field(hit[0], "pv"), field(hit[0], "score")
        total += chunk
    return None


rows = []
for line in open(os.path.join(root, "positions/search_bench.epd")):
    if line.startswith("#") or not line.strip():
        continue
    fen = line.split(";")[0].strip()
    depth = int(re.search(r"acd (\d+)", line).group(1))
    ident = re.search(r'id "([^"]+)"', line).group(1)
    (infos, best), = session(fen, [f"go depth {depth}"])
    last = infos[-1]
    whole = (int(field(last, "nodes")), field(last, "pv"), field(last, "score"))
    rows.append((ident, depth, whole, chunked(fen, depth, True), chunked(fen, depth, False)))


def cell(c, whole):
    if c is None:
        return f"not reached in {max_gos} | - | -"
    return f"{c[0]:,} | {c[1]} | {c[0] / whole[0]:.3f}"


print(f"Chunks of `go nodes {chunk}` (at most {max_gos}), Threads 1, Hash 16 MiB.\n")
print("| position | depth | uninterrupted | restart on | gos | ratio | restart off | gos | ratio "
      "| best/score whole | on | off |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |")
bad = []
sums = [0, 0, 0, 0]  # whole, on, (whole, off) over positions reached with restart off
for ident, depth, whole, on, off in rows:
    bs = lambda c: "-" if c is None else f"{c[2]} {c[3]}"
    print(f"| {ident} | {depth} | {whole[0]:,} | {cell(on, whole)} | {cell(off, whole)} "
          f"| {whole[1]} {whole[2]} | {bs(on)} | {bs(off)} |")
    if on is None or on[0] > LIMIT * whole[0] or (on[2], on[3]) != (whole[1], whole[2]):
        bad.append(ident)
    if on is not None:
        sums[0] += whole[0]
        sums[1] += on[0]
    if off is not None:
        sums[2] += whole[0]
        sums[3] += off[0]
reached_off = sum(1 for r in rows if r[4] is not None)
print(f"\nRestart on: total {sums[1]:,} / {sums[0]:,} = {sums[1] / max(sums[0], 1):.3f}x "
      f"over {sum(1 for r in rows if r[3] is not None)} of {len(rows)} positions.")
print(f"Restart off: {reached_off} of {len(rows)} positions reached their depth; over those, "
      f"{sums[3]:,} / {sums[2]:,} = {sums[3] / max(sums[2], 1):.3f}x.")
if bad:
    print(f"Above {LIMIT}x or another best move/score with restart on: {', '.join(bad)}")
    sys.exit(1)
