#!/usr/bin/env python3
"""Our perft build against the fastest peer programs on an EPD set, interleaved.

    scripts/lab/peers.py [--perft BIN] [--gigantua PATH] [--perft-cpu PATH]
                     [--file EPD] [--rounds N] [--plain | --both] [--filter TEXT]
                     [--json OUT]

--perft BIN       our build (default target/release/perft)
--gigantua PATH   Gigantua (`gigantua "FEN" D`, stdin closed; counts depths 1..D)
--perft-cpu PATH  perft_cpu_2026 (`perft_cpu "FEN" D -nott`; counts depths 1..D)
--file EPD        positions (default positions/speed.epd); each line's deepest
                  ;Dn is the timed depth, and every ;Dn is checked against the
                  peers' per-depth counts
--rounds N        rounds (default 5); each round runs every program once on
                  every position, in an order that rotates from round to round
                  (a round is a pass over the whole set, so a position's
                  samples of one program lie minutes apart, not seconds)
--plain           time `perft count --plain` (the plain counter) instead of the
                  default counter; --both times the two side by side
--filter TEXT     only lines containing TEXT (e.g. an id or "rook ending")
--group KIND      summarise per bin of men (`bins`, the default) or per
                  class, the first item of each line's c0 comment (`class`:
                  the signature classes of positions/endings.epd)
--also NAME=BIN   another build of ours timed in the same rounds (e.g.
                  pgo=target/pgo/release/perft), with its own ratios
--json OUT        every sample and summary as JSON

Every run is a whole process timed by its CPU time (user + system, from
wait4): one thread, no table. Ours runs `perft count D FEN --threads 1
--no-hash --json` and is credited with perft D. The peers count every depth
1..D in one process and print their own time per depth: each is timed for
depth D's share of its CPU time by its own clock (own time of D over the
sum of its own times 1..D) and credited with perft D, as `perft versus`
does. Crediting the sum of the counts instead (`ratio_sum` in the JSON and
the summary's "sum-credited" figure, kept for comparison with older runs) is off
where the branching alternates from ply to ply: on an ending, depth D-1 can
run at three times depth D's nodes per second, and its nodes then overstate
the peer's speed at depth D by up to 13 %, or understate it by up to 7 %.
Per position: the median time of each program, and the median over rounds of
ours/peer speed against the faster peer of that round (and against each peer
on its own). Per bin of men on the board (up to 10, 11-16, 17-24, 25-32), or per class
with --group class, and overall: the geometric mean of those ratios, and
how many positions are at 1.0x or above; with --both, also the default
counter over the plain one (geometric mean and the worst position). A
count of ours that differs from the EPD's stops the script (exit 1); a
peer's wrong count leaves that peer out of that position (said on stderr
and listed in the JSON as `miscounted_by`); a usage error exits 2.
"""

import argparse
import json
import os
import re
import statistics
import sys

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import EpdError, geomean, groups, men, read_epd, run_timed, signature_class  # noqa: E402



def fail(message, code=1):
    print(f"peers.py: {message}", file=sys.stderr)
    sys.exit(code)


def ours(binary, plain):
    def go(pos):
        args = [binary, "count", str(pos["depth"]), pos["fen"], "--threads", "1",
                "--no-hash", "--json"]
        if plain:
            args.append("--plain")
        text, t, code = run_timed(args)
        if code != 0:
            fail(f"{' '.join(args)}: exit {code}")
        nodes = json.loads(text)["nodes"]
        if nodes != pos["counts"][pos["depth"]]:
            fail(f"{pos['id']}: ours {nodes}, EPD {pos['counts'][pos['depth']]}")
        return nodes, t, nodes, t
    return go


def per_depth_peer(binary, argv, pattern, unit):
    """A peer that prints a count and its own time per depth 1..D: timed for
    depth D's share of its CPU time (by its own clock), credited with perft
    D; without a usable clock (depth D at 0), credited with the sum. Returns
    (credited nodes, seconds, sum of the counts, whole CPU seconds)."""
    def go(pos):
        depth = pos["depth"]
        args = [binary] + [a.format(fen=pos["fen"], depth=depth) for a in argv]
        text, t, code = run_timed(args)
        found = {int(d): (int(c.replace(",", "")), float(x) * unit)
                 for d, c, x in re.findall(pattern, text)}
        for d, want in pos["counts"].items():
            got = found.get(d, (None,))[0]
            if got != want:
                if got is not None and code == 0:
                    # A peer's own miscount: it is left out of this position.
                    print(f"peers.py: {pos['id']}: {os.path.basename(binary)} perft {d} = "
                          f"{got}, EPD {want}: left out here", file=sys.stderr, flush=True)
                    return None
                fail(f"{pos['id']}: {os.path.basename(binary)} perft {d} = {got} "
                     f"(exit {code}), EPD {want}")
        total = sum(found[d][0] for d in range(1, depth + 1))
        own = sum(found[d][1] for d in range(1, depth + 1))
        if found[depth][1] > 0 and own > 0:
            return found[depth][0], t * found[depth][1] / own, total, t
        return total, t, total, t
    return go


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("--perft", default="target/release/perft")
    ap.add_argument("--gigantua")
    ap.add_argument("--perft-cpu")
    ap.add_argument("--file", default="positions/speed.epd")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--plain", action="store_true")
    ap.add_argument("--both", action="store_true")
    ap.add_argument("--filter")
    ap.add_argument("--group", choices=["bins", "class"], default="bins")
    ap.add_argument("--also", action="append", default=[],
                    help="NAME=BIN: another build of ours in the same rounds (e.g. pgo=...)")
    ap.add_argument("--json")
    a = ap.parse_args()
    for path in [a.perft, a.gigantua, a.perft_cpu]:
        if path and not (os.path.isfile(path) and os.access(path, os.X_OK)):
            fail(f"{path}: not an executable file", 2)
    if a.rounds < 1:
        fail("--rounds must be at least 1", 2)
    peers = {}
    if a.gigantua:
        peers["gigantua"] = per_depth_peer(a.gigantua, ["{fen}", "{depth}"],
                                           r"Perft (\d+): (\d+) (\d+)ms", 1e-3)
    if a.perft_cpu:
        peers["perft_cpu"] = per_depth_peer(a.perft_cpu, ["{fen}", "{depth}", "-nott"],
                                            r"Perft\(\s*(\d+)\): ([\d,]+), time: ([\d.eE+-]+)", 1.0)
    if not peers:
        fail("name at least one peer (--gigantua, --perft-cpu)", 2)
    mine = {}
    if a.both or not a.plain:
        mine["ours"] = ours(a.perft, False)
    if a.both or a.plain:
        mine["plain"] = ours(a.perft, True)
    for spec in a.also:
        name, sep, path = spec.partition("=")
        if not sep or not name or not (os.path.isfile(path) and os.access(path, os.X_OK)):
            fail(f"--also {spec!r}: not NAME=EXECUTABLE", 2)
        mine[name] = ours(path, a.plain and not a.both)
    programs = {**mine, **peers}
    try:
        positions = read_epd(a.file, a.filter)
    except EpdError as e:
        fail(str(e), 2)

    # (credited nodes, seconds, sum-credited nodes, whole seconds) per round,
    # per position and program. Rounds go over the whole set: a slow spell
    # of the machine (seen here lasting tens of seconds, hitting one
    # program's runs on one position) then lands in one round of a
    # position, which the median drops, not in all of them.
    names = list(programs)
    all_samples = [{name: [] for name in programs} for _ in positions]
    for r in range(a.rounds):
        k = r % len(names)
        for pos, samples in zip(positions, all_samples):
            for name in names[k:] + names[:k]:
                samples[name].append(programs[name](pos))
        print(f"peers.py: round {r + 1} of {a.rounds} done", file=sys.stderr, flush=True)

    results = []
    for pos, samples in zip(positions, all_samples):
        # A peer that miscounted the position is left out of it.
        wrong = [n for n, s in samples.items() if any(x is None for x in s)]
        samples = {n: s for n, s in samples.items() if n not in wrong}
        valid = [p for p in peers if p not in wrong]
        if not valid:
            fail(f"{pos['id']}: every peer miscounted it")
        speed = {n: [x[0] / x[1] for x in s] for n, s in samples.items()}
        speed_sum = {n: [x[2] / x[3] for x in s] for n, s in samples.items()}
        best_peer = [max(speed[p][r] for p in valid) for r in range(a.rounds)]
        best_sum = [max(speed_sum[p][r] for p in valid) for r in range(a.rounds)]
        row = {"id": pos["id"], "fen": pos["fen"], "depth": pos["depth"], "men": men(pos["fen"]),
               "miscounted_by": wrong,
               "class": signature_class(pos["comment"]),
               "seconds": {n: statistics.median(x[1] for x in s) for n, s in samples.items()},
               "mnps": {n: statistics.median(v) / 1e6 for n, v in speed.items()},
               "samples": samples, "ratio": {}, "ratio_sum": {}, "spread": {}, "versus": {}}
        for m in mine:
            rs = [speed[m][r] / best_peer[r] for r in range(a.rounds)]
            row["ratio"][m] = statistics.median(rs)
            row["ratio_sum"][m] = statistics.median(speed_sum[m][r] / best_sum[r]
                                                    for r in range(a.rounds))
            row["spread"][m] = [min(rs), max(rs)]
            row["versus"][m] = {p: statistics.median(speed[m][r] / speed[p][r]
                                                     for r in range(a.rounds))
                                for p in valid}
        if "ours" in mine and "plain" in mine:
            row["ours_over_plain"] = statistics.median(speed["ours"][r] / speed["plain"][r]
                                                       for r in range(a.rounds))
        results.append(row)
        cols = "  ".join(f"{n} {row['mnps'][n]:7.0f}" if n in row["mnps"] else f"{n} wrong"
                         for n in programs)
        rat = "  ".join(f"{m}/peer {row['ratio'][m]:.2f}x ({row['spread'][m][0]:.2f}-"
                        f"{row['spread'][m][1]:.2f})" for m in mine)
        print(f"{pos['id']:<10} {row['men']:2} men D{pos['depth']:<2} Mnps: {cols}  {rat}",
              flush=True)

    summary = {}
    print(f"\ngeometric means of ours/faster peer ({a.rounds} rounds, CPU time, 1 thread, "
          f"no table; peers: {', '.join(peers)})")
    for name, rows in groups(results, a.group):
        summary[name] = {}
        parts = []
        for m in mine:
            g = geomean([r["ratio"][m] for r in rows])
            g_sum = geomean([r["ratio_sum"][m] for r in rows])
            worst = min(rows, key=lambda r: r["ratio"][m])
            versus = {p: geomean([r["versus"][m][p] for r in rows if p in r["versus"][m]])
                      for p in peers}
            summary[name][m] = {"geomean": g, "worst": worst["ratio"][m], "worst_id": worst["id"],
                                "positions": len(rows),
                                "at_least_1": sum(r["ratio"][m] >= 1.0 for r in rows),
                                "versus": versus, "geomean_sum": g_sum,
                                "at_least_1_sum": sum(r["ratio_sum"][m] >= 1.0 for r in rows)}
            each = ", ".join(f"/{p} {v:.2f}x" for p, v in versus.items())
            parts.append(f"{m} {g:.2f}x ({each}; worst {worst['ratio'][m]:.2f}x {worst['id']};"
                         f" sum-credited {g_sum:.2f}x)")
        if "ours" in mine and "plain" in mine:
            over = [r["ours_over_plain"] for r in rows]
            worst = min(rows, key=lambda r: r["ours_over_plain"])
            summary[name]["ours_over_plain"] = {"geomean": geomean(over),
                                                "worst": worst["ours_over_plain"],
                                                "worst_id": worst["id"]}
            parts.append(f"ours/plain {geomean(over):.2f}x (worst {worst['ours_over_plain']:.2f}x "
                         f"{worst['id']})")
        print(f"  {name:<9} {len(rows):2} positions: " + "  ".join(parts))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rounds": a.rounds, "peers": list(peers), "positions": results,
                       "summary": summary}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
