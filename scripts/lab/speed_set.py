#!/usr/bin/env python3
"""Regenerate positions/speed.epd: the broad speed set.

    scripts/lab/speed_set.py [--perft BIN] [--stockfish BIN] [--seed S] [--per-bin N]
                         [--min-time T] [--max-time T] [--out FILE]

Positions come from seeded random games played with python-chess (installed
with pip when missing), never from the published suites. Each game is
steered towards one family by its move choice: captures of the pieces the
family does not keep are preferred, captures of the pieces it keeps are
avoided, so the game drifts into a pawn, rook, queen or minor-piece ending,
a sparse middlegame or a rich one. Positions along the game are candidates;
each is tagged (in check, pins, open king) and the set takes, per piece-count
bin (up to 10, 11-16, 17-24, 25-32 men including kings), N positions that
spread over the families and tags.

Depth: the deepest at which BIN (default target/release/perft, the default
build) needs at most --max-time CPU seconds for `perft count D --threads 1
--no-hash`, and at least --min-time (default 0.3-3 s; the middle of the
window, 1 s, is aimed at). Candidates with no depth in the window are
skipped.

Counts: every ;Dn count written is Stockfish's `go perft n` (default
/usr/games/stockfish), and ours must agree at the timed depth, or the script
stops with exit 1. The seed fixes the positions; the depths depend on the
machine's speed only when a position's time falls near a window edge.

Each line: `FEN ;D1 n ... ;Dd n ;id "speed-NN"; c0 "bin, family, men, tags"`.
Exit 0 on success, 1 on a disagreement, 2 on a usage error.
"""

import argparse
import json
import math
import os
import random
import subprocess
import sys

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import BINS, ensure_module, run_timed  # noqa: E402

ensure_module("chess", "chess", "speed_set.py")
import chess  # noqa: E402

# family: (piece types kept besides kings and pawns, men range the game aims at)
FAMILIES = {
    "pawn ending": ({chess.PAWN}, (3, 16)),
    "rook ending": ({chess.ROOK, chess.PAWN}, (4, 16)),
    "queen ending": ({chess.QUEEN, chess.PAWN}, (4, 16)),
    "minor-piece ending": ({chess.BISHOP, chess.KNIGHT, chess.PAWN}, (4, 16)),
    "sparse middlegame": (
        {chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN},
        (11, 24),
    ),
    "rich middlegame": (
        {chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN},
        (17, 32),
    ),
}


def men(board):
    return chess.popcount(board.occupied)


def pins(board):
    """Pieces of either side pinned to their own king."""
    n = 0
    for color in chess.COLORS:
        for sq in chess.SquareSet(board.occupied_co[color]):
            if board.piece_type_at(sq) != chess.KING and board.is_pinned(color, sq):
                n += 1
    return n


def open_king(board):
    """A king with at most one own piece around it and an enemy queen or rook."""
    for color in chess.COLORS:
        king = board.king(color)
        around = chess.SquareSet(chess.BB_KING_ATTACKS[king]) & board.occupied_co[color]
        enemy = board.pieces(chess.QUEEN, not color) | board.pieces(chess.ROOK, not color)
        if len(around) <= 1 and enemy:
            return True
    return False


def tags(board):
    out = []
    if board.is_check():
        out.append("check")
    p = pins(board)
    if p >= 2:
        out.append(f"{p} pins")
    elif p == 1:
        out.append("pin")
    if open_king(board):
        out.append("open king")
    if board.ep_square is not None and board.has_legal_en_passant():
        out.append("en passant")
    if board.castling_rights:
        out.append("castling")
    return out


def fits(board, keep, lo, hi):
    kinds = {board.piece_type_at(sq) for sq in chess.SquareSet(board.occupied)}
    kinds.discard(chess.KING)
    return kinds <= keep and lo <= men(board) <= hi


def steered_game(rng, family, max_plies=220):
    """Candidate positions from one game steered towards `family`."""
    keep, (lo, hi) = FAMILIES[family]
    board = chess.Board()
    out = []
    for ply in range(max_plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        weights = []
        for mv in moves:
            w = 1.0
            if board.is_capture(mv):
                victim = board.piece_type_at(mv.to_square) or chess.PAWN
                w = 0.3 if (victim in keep and men(board) <= hi + 2) else 12.0
            if mv.promotion and mv.promotion != chess.QUEEN:
                w *= 0.3
            if mv.promotion and chess.QUEEN not in keep and men(board) <= hi:
                w *= 0.1
            weights.append(w)
        board.push(rng.choices(moves, weights)[0])
        if board.is_game_over(claim_draw=False):
            break
        if ply >= 10 and fits(board, keep, lo, hi) and rng.random() < 0.25:
            out.append(board.copy(stack=False))
        if men(board) < lo:
            break
    return out


# The script running (this one, or endings_set.py, which imports the helpers
# below), for messages.
PROG = os.path.basename(sys.argv[0])


def count_ours(binary, depth, fen):
    """(nodes, CPU seconds) of `perft count` on one thread, no table."""
    args = [binary, "count", str(depth), fen, "--threads", "1", "--no-hash", "--json"]
    text, seconds, code = run_timed(args)
    if code != 0:
        sys.exit(f"{PROG}: {' '.join(args)} failed (exit {code})")
    return json.loads(text)["nodes"], seconds


class Stockfish:
    def __init__(self, path):
        self.p = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.send("uci")
        self.wait("uciok")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, prefix):
        for line in self.p.stdout:
            if line.startswith(prefix):
                return line
        sys.exit(f"{PROG}: stockfish ended")

    def perft(self, fen, depth):
        self.send(f"position fen {fen}")
        self.send(f"go perft {depth}")
        return int(self.wait("Nodes searched:").split(":")[1])

    def close(self):
        self.send("quit")
        self.p.wait()


def choose_depth(binary, fen, lo, hi):
    """(depth, nodes, seconds) with seconds in [lo, hi] nearest their
    geometric middle, or None."""
    best, prev = None, None
    for depth in range(3, 20):
        nodes, t = count_ours(binary, depth, fen)
        if lo <= t <= hi:
            score = abs(math.log(t / math.sqrt(lo * hi)))
            if best is None or score < best[3]:
                best = (depth, nodes, t, score)
        if t > hi or nodes == 0:
            break
        # The next depth costs about this one times the last growth in nodes:
        # stop before a run that would take far past the window.
        if prev is not None and t > 0.02 and nodes * (nodes / max(prev, 1)) > nodes * 2 * hi / t:
            break
        prev = nodes
    return best[:3] if best else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perft", default="target/release/perft")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--per-bin", type=int, default=16)
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--max-time", type=float, default=3.0)
    ap.add_argument("--out", default="positions/speed.epd")
    a = ap.parse_args()
    for path in (a.perft, a.stockfish):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            print(f"speed_set.py: {path}: not an executable file", file=sys.stderr)
            sys.exit(2)
    if a.per_bin < 1 or not 0 < a.min_time < a.max_time:
        print("speed_set.py: --per-bin must be >= 1, 0 < --min-time < --max-time", file=sys.stderr)
        sys.exit(2)

    rng = random.Random(a.seed)
    # Candidates per bin, per family, in generation order.
    pool = {b[2]: {f: [] for f in FAMILIES} for b in BINS}
    seen = set()
    for round_ in range(60):
        for family in FAMILIES:
            for board in steered_game(rng, family):
                key = board.board_fen()
                if key in seen:
                    continue
                seen.add(key)
                m = men(board)
                for lo, hi, name in BINS:
                    if lo <= m <= hi:
                        pool[name][family].append(board)

    sf = Stockfish(a.stockfish)
    lines = []
    for lo, hi, name in BINS:
        families = [f for f in FAMILIES if pool[name][f]]
        taken, wanted_tags = [], ["check", "pins", "open king", None]
        cursor = {f: 0 for f in families}
        i = 0
        while len(taken) < a.per_bin and any(cursor[f] < len(pool[name][f]) for f in families):
            family = families[i % len(families)]
            want = wanted_tags[(i // len(families)) % len(wanted_tags)]
            i += 1
            cands = pool[name][family]
            # The next candidate of this family carrying the wanted tag, else the next one.
            pick = None
            for j in range(cursor[family], len(cands)):
                t = tags(cands[j])
                if want is None or any(want in x for x in t):
                    pick = j
                    break
            if pick is None:
                pick = cursor[family]
            if pick >= len(cands):
                continue
            board = cands[pick]
            cands.pop(pick)
            fen = board.fen()
            chosen = choose_depth(a.perft, fen, a.min_time, a.max_time)
            if chosen is None:
                continue
            depth, nodes, secs = chosen
            counts = [sf.perft(fen, d) for d in range(1, depth + 1)]
            if counts[-1] != nodes:
                print(f"speed_set.py: {fen} perft {depth}: ours {nodes}, Stockfish {counts[-1]}",
                      file=sys.stderr)
                sys.exit(1)
            t = tags(board)
            taken.append((fen, counts, family, men(board), t, secs))
            print(f"{name:>8} {family:<20} {men(board):2} men D{depth} {secs:5.2f} s "
                  f"{', '.join(t)}", file=sys.stderr, flush=True)
        if len(taken) < a.per_bin:
            print(f"speed_set.py: bin {name}: only {len(taken)} positions", file=sys.stderr)
            sys.exit(1)
        lines.append((name, taken))
    sf.close()

    with open(a.out, "w") as f:
        f.write(
            "# The broad speed set: positions from seeded random games, never from\n"
            "# the published suites, in four bins of men on the board (kings included).\n"
            f"# Generated by scripts/lab/speed_set.py --seed {a.seed} --per-bin {a.per_bin}; each\n"
            "# line's deepest ;Dn is the timed depth, where the default build needs about\n"
            f"# {a.min_time:g}-{a.max_time:g} s on one thread without a table. Every ;Dn count is Stockfish 15.1's\n"
            "# `go perft n` (and ours agrees at the timed depth).\n"
        )
        n = 0
        for name, taken in lines:
            f.write(f"# bin {name}\n")
            for fen, counts, family, m, t, _ in taken:
                n += 1
                ds = " ".join(f";D{d} {c}" for d, c in enumerate(counts, 1))
                desc = ", ".join([f"bin {name}", family, f"{m} men"] + t)
                f.write(f'{fen} {ds} ;id "speed-{n:02}"; c0 "{desc}"\n')
    print(f"speed_set.py: wrote {a.out} ({n} positions)", file=sys.stderr)


if __name__ == "__main__":
    main()
