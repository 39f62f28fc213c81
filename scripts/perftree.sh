#!/bin/sh
# perftree-cli wrapper: perftree runs `script DEPTH FEN [MOVES]`; perft speaks that protocol.
exec perft perftree "$@"
