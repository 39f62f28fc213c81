#!/usr/bin/env bash
# Replaced by `perft versus` (docs/versus.md): this wrapper passes its arguments on, Stockfish alone by default.
exec "${PERFT:-target/release/perft}" versus "${@:-stockfish}"
