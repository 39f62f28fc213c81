#!/usr/bin/env python3
"""Differential campaign: perft divide against Stockfish on seeded random positions.

    scripts/differential.py [--positions N] [--seed S] [--families LIST]
                            [--max-depth D] [--max-nodes N] [--perft PATH]
                            [--stockfish PATH] [--threads T] [--json]

Positions come from python-chess (installed with pip when missing), so their
generation is independent of the code under test. Families, in turn:

  play        random play from the start position and the suite positions
  biased      play that prefers castling, en passant, promotions and checks
  placement   legal random placements, with castling rights and an
              en-passant square where the board allows them
  chess960    a Chess960 start (of 960) plus random play, Shredder-FEN

Each position is divided at depth 3 to --max-depth (the deepest whose
estimated tree, moves^depth, stays under --max-nodes) by ONE long-running
`perft uci` and ONE long-running Stockfish (`position fen ...` then
`go perft N`), and the per-move counts are compared. On a difference the
script bisects: it descends into a move whose counts differ (or that only one
side lists) until depth 1, and prints the path, the position and both move
lists. Exit code 0 when every position agreed, 1 on any disagreement, 2 on a
setup error (no Stockfish, no binary, an engine that died).
"""

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scriptlib import ensure_module  # noqa: E402

ensure_module("chess", "chess", "differential.py")
import chess  # noqa: E402


class Engine:
    """A UCI engine kept running for the whole campaign."""

    def __init__(self, name, argv):
        self.name = name
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.chess960 = None
        self.send("uci")
        self.read_until(lambda line: line == "uciok")

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            sys.exit(f"differential.py: {self.name} exited (wrote '{line}')")

    def read_until(self, done):
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit(f"differential.py: {self.name} exited unexpectedly")
            line = line.strip()
            lines.append(line)
            if done(line):
                return lines

    def set_chess960(self, on):
        if self.chess960 != on:
            self.send(f"setoption name UCI_Chess960 value {'true' if on else 'false'}")
            self.send("isready")
            self.read_until(lambda line: line == "readyok")
            self.chess960 = on

    def divide(self, fen, moves, depth, chess960):
        """{move: count} and the total of `go perft depth`."""
        self.set_chess960(chess960)
        position = f"position fen {fen}"
        if moves:
            position += " moves " + " ".join(moves)
        self.send(position)
        self.send(f"go perft {depth}")
        lines = self.read_until(
            lambda line: line.startswith("Nodes searched") or line.startswith("info string error")
        )
        if lines[-1].startswith("info string error"):
            return {"rejected": lines[-1]}, -1
        counts = {}
        for line in lines[:-1]:
            head, sep, tail = line.partition(": ")
            if sep and tail.isdigit() and 4 <= len(head) <= 5 and " " not in head:
                counts[head] = int(tail)
        total = int(lines[-1].split(":")[1])
        return counts, total

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        except (subprocess.TimeoutExpired, SystemExit):
            self.proc.kill()


# ----- position families (python-chess) -----

def suite_fens():
    fens = []
    for name in ("standard", "perftsuite", "tricky"):
        path = os.path.join(REPO, "positions", f"{name}.epd")
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    fens.append(line.split(";")[0].strip())
    return fens


def random_play(board, plies, rng, bias=False):
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        if bias:
            weights = []
            for mv in moves:
                w = 1
                if board.is_castling(mv):
                    w += 30
                if board.is_en_passant(mv):
                    w += 40
                if mv.promotion:
                    w += 20
                if board.gives_check(mv):
                    w += 6
                if board.piece_type_at(mv.from_square) == chess.PAWN:
                    w += 2  # pawns forward: more promotions and ep chances
                weights.append(w)
            mv = rng.choices(moves, weights)[0]
        else:
            mv = rng.choice(moves)
        board.push(mv)
    return board


def family_play(rng, fens):
    start = rng.choice(fens + [chess.STARTING_FEN] * 4)
    board = chess.Board(start)
    return random_play(board, rng.randrange(0, 80), rng)


def family_biased(rng, fens):
    board = chess.Board(rng.choice(fens + [chess.STARTING_FEN] * 4))
    return random_play(board, rng.randrange(4, 90), rng, bias=True)


def family_placement(rng, _fens):
    for _ in range(1000):
        board = chess.Board(None)
        castle_ready = rng.random() < 0.5
        if castle_ready:
            board.set_piece_at(chess.E1, chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(chess.E8, chess.Piece(chess.KING, chess.BLACK))
            for sq, color in ((chess.A1, True), (chess.H1, True), (chess.A8, False), (chess.H8, False)):
                if rng.random() < 0.7:
                    board.set_piece_at(sq, chess.Piece(chess.ROOK, color))
        else:
            for color in (chess.WHITE, chess.BLACK):
                sq = rng.choice([s for s in chess.SQUARES if board.piece_at(s) is None])
                board.set_piece_at(sq, chess.Piece(chess.KING, color))
        board.turn = rng.random() < 0.5
        if rng.random() < 0.5:
            # A pawn that may just have pushed two, and an enemy pawn beside it.
            pusher = not board.turn
            rank = 4 if pusher == chess.BLACK else 3
            file = rng.randrange(8)
            beside = file + rng.choice([-1, 1])
            if 0 <= beside < 8:
                for f, color in ((file, pusher), (beside, board.turn)):
                    sq = chess.square(f, rank)
                    if board.piece_at(sq) is None:
                        board.set_piece_at(sq, chess.Piece(chess.PAWN, color))
        for _ in range(rng.randrange(0, 14)):
            kind = rng.choice([chess.PAWN] * 3 + [chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN])
            color = rng.random() < 0.5
            free = [s for s in chess.SQUARES if board.piece_at(s) is None]
            if kind == chess.PAWN:
                free = [s for s in free if 8 <= s < 56]
            board.set_piece_at(rng.choice(free), chess.Piece(kind, color))
        rights = ""
        for king_sq, rook_sq, flag, color in (
            (chess.E1, chess.H1, "K", True),
            (chess.E1, chess.A1, "Q", True),
            (chess.E8, chess.H8, "k", False),
            (chess.E8, chess.A8, "q", False),
        ):
            if board.piece_at(king_sq) == chess.Piece(chess.KING, color) and board.piece_at(
                rook_sq
            ) == chess.Piece(chess.ROOK, color):
                rights += flag
        board.set_castling_fen(rights or "-")
        # En passant where a pawn of the side not to move stands as if it
        # had just pushed two.
        candidates = []
        for f in range(8):
            if board.turn == chess.WHITE:
                pawn, passed, start = chess.square(f, 4), chess.square(f, 5), chess.square(f, 6)
                color = chess.BLACK
            else:
                pawn, passed, start = chess.square(f, 3), chess.square(f, 2), chess.square(f, 1)
                color = chess.WHITE
            if (
                board.piece_at(pawn) == chess.Piece(chess.PAWN, color)
                and board.piece_at(passed) is None
                and board.piece_at(start) is None
            ):
                candidates.append(passed)
        board.ep_square = rng.choice(candidates) if candidates else None
        if board.is_valid() and promotions_possible(board):
            return board
    raise RuntimeError("no valid placement in 1000 tries")


def promotions_possible(board):
    """More pieces beyond the initial set than missing pawns cannot come
    from promotions; python-chess accepts such boards, perft (like a game)
    rejects them (`PositionError::PieceCount`)."""
    for color in (chess.WHITE, chess.BLACK):
        def n(kind):
            return len(board.pieces(kind, color))
        extra = max(n(chess.KNIGHT) - 2, 0) + max(n(chess.BISHOP) - 2, 0) + \
            max(n(chess.ROOK) - 2, 0) + max(n(chess.QUEEN) - 1, 0)
        if extra > 8 - n(chess.PAWN):
            return False
    return True


def family_chess960(rng, _fens):
    board = chess.Board.from_chess960_pos(rng.randrange(960))
    return random_play(board, rng.randrange(0, 60), rng, bias=rng.random() < 0.3)


FAMILIES = {
    "play": family_play,
    "biased": family_biased,
    "placement": family_placement,
    "chess960": family_chess960,
}


def fen_of(board, rng):
    if board.chess960:
        return board.fen(shredder=True)
    # Sometimes keep an en-passant square that no capture can use (both
    # engines must ignore it), usually write it only when a capture is legal.
    return board.fen(en_passant="fen" if rng.random() < 0.3 else "legal")


def pick_depth(board, max_depth, max_nodes):
    branching = max(board.legal_moves.count(), 2)
    depth = 3
    while depth < max_depth and branching ** (depth + 1) <= max_nodes:
        depth += 1
    return depth


# ----- comparison and bisection -----

def bisect(perft, sf, fen, chess960, depth, ours, theirs):
    """Descends into a differing move until depth 1; returns report lines."""
    path = []
    report = []
    while True:
        differing = sorted(
            mv for mv in set(ours) | set(theirs) if ours.get(mv) != theirs.get(mv)
        )
        only_ours = sorted(set(ours) - set(theirs))
        only_theirs = sorted(set(theirs) - set(ours))
        report.append(
            f"  after [{' '.join(path)}] depth {depth}: differing {differing[:12]}"
            + (f"; only perft lists {only_ours}" if only_ours else "")
            + (f"; only stockfish lists {only_theirs}" if only_theirs else "")
        )
        # A move one side does not list is the first error: stop there.
        if depth == 1 or only_ours or only_theirs or not differing:
            report.append(f"  position: {fen}" + (f" moves {' '.join(path)}" if path else ""))
            return report
        path.append(differing[0])
        depth -= 1
        ours, _ = perft.divide(fen, path, depth, chess960)
        theirs, _ = sf.divide(fen, path, depth, chess960)


def find_stockfish(given):
    for cand in (given, shutil.which("stockfish"), "/usr/games/stockfish"):
        if cand and os.path.exists(cand) and os.access(cand, os.X_OK):
            return cand
    sys.exit("differential.py: Stockfish not found (scripts/test.sh installs it; or --stockfish PATH)")


def find_perft(given):
    if given:
        return given
    binary = os.path.join(REPO, "target", "release", "perft")
    print("differential.py: cargo build --release", file=sys.stderr)
    if subprocess.call(["cargo", "build", "--release", "--quiet"], cwd=REPO) != 0:
        sys.exit("differential.py: cargo build --release failed")
    return binary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--families", default="play,biased,placement,chess960")
    ap.add_argument("--max-depth", type=int, default=5)
    ap.add_argument("--max-nodes", type=int, default=3_000_000)
    ap.add_argument("--perft", help="perft binary (default: build target/release/perft)")
    ap.add_argument("--stockfish")
    ap.add_argument("--threads", type=int, default=1, help="threads of `perft uci`")
    ap.add_argument("--engine-cmd", help="the engine under test as a command line "
                    "(default: PERFT uci --threads T --quiet); for testing the script itself")
    ap.add_argument("--json", action="store_true", help="summary as JSON on stdout")
    args = ap.parse_args()

    families = [f for f in args.families.split(",") if f]
    for f in families:
        if f not in FAMILIES:
            sys.exit(f"differential.py: unknown family '{f}' ({', '.join(FAMILIES)})")
    sf_path = find_stockfish(args.stockfish)
    if args.engine_cmd:
        perft = Engine("perft", shlex.split(args.engine_cmd))
    else:
        perft_path = find_perft(args.perft)
        perft = Engine("perft", [perft_path, "uci", "--threads", str(args.threads), "--quiet"])
    sf = Engine("stockfish", [sf_path])
    fens = suite_fens()
    rng = random.Random(args.seed)
    stats = {f: {"positions": 0, "nodes": 0, "disagreements": 0} for f in families}
    depths = {}
    disagreements = 0
    start = time.time()
    last_note = start
    for i in range(args.positions):
        family = families[i % len(families)]
        board = FAMILIES[family](rng, fens)
        if board.is_game_over(claim_draw=False) and not board.legal_moves:
            board = FAMILIES[family](rng, fens)
        fen = fen_of(board, rng)
        depth = pick_depth(board, args.max_depth, args.max_nodes)
        depths[depth] = depths.get(depth, 0) + 1
        ours, our_total = perft.divide(fen, [], depth, board.chess960)
        theirs, their_total = sf.divide(fen, [], depth, board.chess960)
        s = stats[family]
        s["positions"] += 1
        s["nodes"] += their_total
        if ours != theirs or our_total != their_total:
            disagreements += 1
            s["disagreements"] += 1
            print(f"DISAGREEMENT #{disagreements} ({family}, position {i}, depth {depth}): "
                  f"perft {our_total}, stockfish {their_total}", file=sys.stderr)
            for line in bisect(perft, sf, fen, board.chess960, depth, ours, theirs):
                print(line, file=sys.stderr)
        now = time.time()
        if now - last_note > 60:
            last_note = now
            print(f"differential.py: {i + 1}/{args.positions} positions, "
                  f"{disagreements} disagreements, {now - start:.0f} s", file=sys.stderr)
    elapsed = time.time() - start
    perft.close()
    sf.close()
    summary = {
        "positions": args.positions,
        "seed": args.seed,
        "disagreements": disagreements,
        "seconds": round(elapsed, 1),
        "depths": {str(d): n for d, n in sorted(depths.items())},
        "families": stats,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for f, s in stats.items():
            print(f"{f:10} {s['positions']:7} positions {s['nodes']:14} nodes "
                  f"{s['disagreements']} disagreements")
        print(f"depths {summary['depths']}")
        print(f"{args.positions} positions, {disagreements} disagreements, "
              f"{elapsed:.1f} s (seed {args.seed})")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
