#!/usr/bin/env bash
# Stockfish's divide for a position: sf_divide.sh DEPTH FEN [MOVES...]
# Set STOCKFISH to the binary (default: stockfish on PATH, then /usr/games/stockfish).
# Chess960 mode is switched on when the castling field uses Shredder letters.
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 DEPTH FEN [MOVES...]" >&2
    exit 2
fi
depth=$1; fen=$2; shift 2
sf=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
castling=$(echo "$fen" | awk '{print $3}')
c960=false
if echo "$castling" | grep -q '[A-Ha-h]'; then c960=true; fi
moves=""
if [ $# -gt 0 ]; then moves=" moves $*"; fi
printf 'setoption name UCI_Chess960 value %s\nposition fen %s%s\ngo perft %s\nquit\n' \
    "$c960" "$fen" "$moves" "$depth" | "$sf" | grep -E '^[a-h][1-8][a-h][1-8][nbrq]?: |^$|^Nodes searched'
