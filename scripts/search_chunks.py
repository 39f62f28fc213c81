#!/usr/bin/env python3
"""Nodes to reach each bench position's depth when searched in chunks.

For every position of positions/search_bench.epd, one `perft uci` session
(Threads 1) sends `position fen ...` and then `go nodes CHUNK` repeatedly
(the GUI pattern of issue 25) until a `go` reports an iteration at the
position's depth (`acd`). The cost is CHUNK nodes per `go` before that one
plus the nodes of that `go` up to that iteration. It is compared with one
uninterrupted `go depth D` in a fresh session: nodes, best move and score.

    scripts/search_chunks.py [CHUNK [MAX_GOS]]   (defaults 20000 and 400)

PERFT sets the binary (default target/release/perft). Single-threaded and
deterministic. Prints a Markdown table.
"""
import os
import re
import subprocess
import sys

chunk = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
max_gos = int(sys.argv[2]) if len(sys.argv) > 2 else 400
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
perft = os.environ.get("PERFT", os.path.join(root, "target/release/perft"))
extra = sys.argv[3:]  # extra setoption lines, e.g. "Restart false"


def session(fen, gos):
    text = "uci\nsetoption name Threads value 1\n"
    for opt in extra:
        name, value = opt.split("=")
        text += f"setoption name {name} value {value}\n"
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


rows = []
for line in open(os.path.join(root, "positions/search_bench.epd")):
    if line.startswith("#") or not line.strip():
        continue
    fen = line.split(";")[0].strip()
    depth = int(re.search(r"acd (\d+)", line).group(1))
    ident = re.search(r'id "([^"]+)"', line).group(1)
    (infos, best), = session(fen, [f"go depth {depth}"])
    last = infos[-1]
    whole = int(field(last, "nodes"))
    replies = session(fen, [f"go nodes {chunk}"] * max_gos)
    total, found = 0, None
    for k, (infos, bm) in enumerate(replies):
        hit = [l for l in infos if int(field(l, "depth")) >= depth]
        if hit:
            total += int(field(hit[0], "nodes"))
            found = (k + 1, bm, field(hit[0], "score"), hit[0])
            break
        total += chunk
    if found is None:
        rows.append((ident, depth, whole, None, None, best, field(last, "score"), "-", "-"))
    else:
        rows.append((ident, depth, whole, total, found[0], best, field(last, "score"), found[1], found[2]))

print(f"| position | depth | uninterrupted | in chunks of {chunk} | gos | ratio | best/score whole | best/score chunks |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
tw = tc = 0
for ident, depth, whole, total, gos, best, score, cbest, cscore in rows:
    if total is None:
        print(f"| {ident} | {depth} | {whole:,} | not reached in {max_gos} | - | - | {best} {score} | - |")
        continue
    tw += whole
    tc += total
    print(f"| {ident} | {depth} | {whole:,} | {total:,} | {gos} | {total / whole:.3f} | {best} {score} | {cbest} {cscore} |")
if tw:
    print(f"| **total** | | **{tw:,}** | **{tc:,}** | | **{tc / tw:.3f}** | | |")
