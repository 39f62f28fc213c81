#!/usr/bin/env python3
"""Regenerate positions/endings.epd: endings by material signature.

    scripts/lab/endings_set.py [--perft BIN] [--stockfish BIN] [--seed S] [--per-signature N]
                           [--min-time T] [--max-time T] [--out FILE]

Where positions/speed.epd comes from games, this set places men at random:
for each material signature (KRPvKR, three minor pieces against a queen,
two rooks and bishops against rook and knights, pawns about to promote,
both sides with queens, ...) the script draws positions with python-chess
(installed with pip when missing) until it has N legal ones, seeded, so
that endings nobody tuned for are measured as often as the common ones.

A position is drawn as follows: the signature's first side is White or
Black at random, each man goes on a random empty square (pawns on ranks 2
to 7; a pawn marked "about to promote" on its seventh rank; two bishops of
one side on squares of both colours), the side to move is random, there is
no castling and no en passant. It is kept when python-chess finds it valid
(kings apart, the side not to move not in check, no impossible check) and
the side to move has at least one move.

Depth: the deepest at which BIN (default target/release/perft, the default
build) needs at most --max-time CPU seconds for `perft count D --threads 1
--no-hash`, and at least --min-time (default 0.3-3 s; 1 s is aimed at). A
position with no depth in that window is drawn again.

Counts: every ;Dn count written is Stockfish's `go perft n` (default
/usr/games/stockfish), and ours must agree at the timed depth, or the script
stops with exit 1.

Each line: `FEN ;D1 n ... ;Dd n ;id "endings-NN"; c0 "CLASS, SIGNATURE, M men"`.
Exit 0 on success, 1 on a disagreement, 2 on a usage error.
"""

import argparse
import os
import random
import sys

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import ensure_module  # noqa: E402

ensure_module("chess", "chess", "endings_set.py")
import chess  # noqa: E402

# Timing a depth and checking counts as the speed set's generator does.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speed_set import Stockfish, choose_depth  # noqa: E402

# (class, signature): the men of each side beyond its king. `p` is a pawn
# about to promote (on its seventh rank), `P` any other pawn.
SIGNATURES = [
    ("pawn and rook endings", "PPP v PP"),
    ("pawn and rook endings", "RP v R"),
    ("pawn and rook endings", "RPP v RP"),
    ("queen endings", "QP v Q"),
    ("queen endings", "QPP v QP"),
    ("minor-piece endings", "BNP v BP"),
    ("minor-piece endings", "NNP v BP"),
    ("minor-piece endings", "BBP v NP"),
    ("queen against pieces", "Q v BBN"),
    ("queen against pieces", "QP v RBN"),
    ("rooks and minor pieces", "RRBB v RNN"),
    ("rooks and minor pieces", "RNPP v BNPP"),
    ("pawns about to promote", "pp v R"),
    ("pawns about to promote", "Rp v Rp"),
    ("pawns about to promote", "Qp v BNN"),
    ("both sides with queens", "QR v QR"),
    ("both sides with queens", "QBPP v QNPP"),
    ("both sides with queens", "QRNPP v QRBPP"),
]

KINDS = {"P": chess.PAWN, "p": chess.PAWN, "N": chess.KNIGHT, "B": chess.BISHOP,
         "R": chess.ROOK, "Q": chess.QUEEN}


def signature_name(sig):
    """`RP v R` -> `KRPvKR` (a pawn about to promote written P7)."""
    a, b = (s.strip() for s in sig.split("v"))
    side = lambda men: "K" + "".join("P7" if m == "p" else m for m in men)  # noqa: E731
    return f"{side(a)}v{side(b)}"


def men_of(sig):
    a, b = (s.strip() for s in sig.split("v"))
    return 2 + len(a) + len(b)


def draw(rng, sig):
    """One random placement of `sig`, or None when it is not a valid position."""
    a, b = (s.strip() for s in sig.split("v"))
    first = rng.choice([chess.WHITE, chess.BLACK])
    board = chess.Board(None)
    free = set(chess.SQUARES)

    def put(square, piece):
        board.set_piece_at(square, piece)
        free.discard(square)

    for color in (chess.WHITE, chess.BLACK):
        king = rng.choice(sorted(free))
        put(king, chess.Piece(chess.KING, color))
    for color, men in ((first, a), (not first, b)):
        bishop_colours = []
        for m in men:
            kind = KINDS[m]
            if m == "p":
                rank = 6 if color == chess.WHITE else 1
                squares = [s for s in free if chess.square_rank(s) == rank]
            elif m == "P":
                squares = [s for s in free if 1 <= chess.square_rank(s) <= 6]
            elif m == "B" and bishop_colours:
                # A second bishop on the other colour.
                other = 1 - bishop_colours[0]
                squares = [s for s in free if (chess.square_file(s) + chess.square_rank(s)) % 2 == other]
            else:
                squares = list(free)
            if not squares:
                return None
            square = rng.choice(sorted(squares))
            if m == "B":
                bishop_colours.append((chess.square_file(square) + chess.square_rank(square)) % 2)
            put(square, chess.Piece(kind, color))
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    board.castling_rights = chess.BB_EMPTY
    board.ep_square = None
    if not board.is_valid() or not any(board.legal_moves):
        return None
    return board


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perft", default="target/release/perft")
    ap.add_argument("--stockfish", default="/usr/games/stockfish")
    ap.add_argument("--seed", type=int, default=54)
    ap.add_argument("--per-signature", type=int, default=4)
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--max-time", type=float, default=3.0)
    ap.add_argument("--out", default="positions/endings.epd")
    a = ap.parse_args()
    for path in (a.perft, a.stockfish):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            print(f"endings_set.py: {path}: not an executable file", file=sys.stderr)
            sys.exit(2)
    if a.per_signature < 1 or not 0 < a.min_time < a.max_time:
        print("endings_set.py: --per-signature must be >= 1, 0 < --min-time < --max-time",
              file=sys.stderr)
        sys.exit(2)

    rng = random.Random(a.seed)
    sf = Stockfish(a.stockfish)
    taken = []
    for klass, sig in SIGNATURES:
        got, tries, seen = 0, 0, set()
        while got < a.per_signature:
            tries += 1
            if tries > 2000:
                sys.exit(f"endings_set.py: {signature_name(sig)}: no position in the time window")
            board = draw(rng, sig)
            if board is None or board.board_fen() in seen:
                continue
            seen.add(board.board_fen())
            fen = board.fen()
            chosen = choose_depth(a.perft, fen, a.min_time, a.max_time)
            if chosen is None:
                continue
            depth, nodes, secs = chosen
            counts = [sf.perft(fen, d) for d in range(1, depth + 1)]
            if counts[-1] != nodes:
                print(f"endings_set.py: {fen} perft {depth}: ours {nodes}, Stockfish {counts[-1]}",
                      file=sys.stderr)
                sys.exit(1)
            got += 1
            taken.append((klass, sig, fen, counts, secs))
            print(f"{klass:<24} {signature_name(sig):<16} {men_of(sig):2} men D{depth} "
                  f"{secs:5.2f} s", file=sys.stderr, flush=True)
    sf.close()

    with open(a.out, "w") as f:
        f.write(
            "# The endings set: positions placed at random by material signature (not from\n"
            f"# games), {a.per_signature} per signature, {len(SIGNATURES)} signatures in "
            f"{len({k for k, _ in SIGNATURES})} classes, 5 to 16 men.\n"
            f"# Generated by scripts/lab/endings_set.py --seed {a.seed} --per-signature {a.per_signature};\n"
            "# each line's deepest ;Dn is the timed depth, where the default build needs about\n"
            f"# {a.min_time:g}-{a.max_time:g} s on one thread without a table. Every ;Dn count is Stockfish 15.1's\n"
            "# `go perft n` (and ours agrees at the timed depth). c0 gives the class, the\n"
            "# signature (P7: a pawn on its seventh rank) and the men.\n"
        )
        klass_now = None
        for n, (klass, sig, fen, counts, _) in enumerate(taken, 1):
            if klass != klass_now:
                f.write(f"# {klass}\n")
                klass_now = klass
            ds = " ".join(f";D{d} {c}" for d, c in enumerate(counts, 1))
            desc = f"{klass}, {signature_name(sig)}, {men_of(sig)} men"
            f.write(f'{fen} {ds} ;id "endings-{n:02}"; c0 "{desc}"\n')
    print(f"endings_set.py: wrote {a.out} ({len(taken)} positions)", file=sys.stderr)


if __name__ == "__main__":
    main()
