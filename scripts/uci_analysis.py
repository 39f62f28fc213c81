#!/usr/bin/env python3
"""A GUI's analysis mode against `perft uci`, through python-chess
(`pip install chess`): `engine.analysis()` (go infinite), then `stop()`,
must return promptly with a best move. Also plays a ponder sequence.

Usage: scripts/uci_analysis.py [PATH_TO_PERFT]   (default target/release/perft)
Exit code 0 when every check holds, 1 otherwise.
"""

import sys
import time

import chess
import chess.engine


def main() -> int:
    perft = sys.argv[1] if len(sys.argv) > 1 else "target/release/perft"
    engine = chess.engine.SimpleEngine.popen_uci([perft, "uci"])
    ok = True
    try:
        board = chess.Board()
        board.push_uci("e2e4")
        with engine.analysis(board) as analysis:
            time.sleep(1.0)
            start = time.monotonic()
            analysis.stop()
            best = analysis.wait()
            took = time.monotonic() - start
        move = best.move if best else None
        print(f"analysis: stop answered in {took * 1000:.0f} ms with bestmove {move}")
        if move is None or move not in board.legal_moves or took > 0.5:
            ok = False
        # A timed search still works after it (the engine is in step).
        start = time.monotonic()
        result = engine.play(board, chess.engine.Limit(time=0.2))
        took = time.monotonic() - start
        print(f"play 0.2 s: {result.move} in {took * 1000:.0f} ms")
        if result.move not in board.legal_moves or took > 1.5:
            ok = False
    finally:
        engine.quit()
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
