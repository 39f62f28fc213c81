#!/usr/bin/env bash
# Nodes searched by `perft search` with the TT off, on with --on-fail rollback
# and on with --on-fail commit, on a fixed set of middlegame positions at a
# fixed depth, plus the rollback counts. Prints a Markdown table.
#
#   scripts/lab/tt_policy.sh [DEPTH [ASPIRATION_CP ...]]
#
# DEPTH defaults to 7. With several ASPIRATION_CP values it prints one table per
# width (0 = no aspiration window); the default is the binary's default width.
# Set PERFT to the binary (default: target/release/perft; build it first with
# `cargo build --release`). Single-threaded and deterministic: node counts do
# not depend on the machine, times do.
set -euo pipefail
cd "$(dirname "$0")/../.."
perft=${PERFT:-target/release/perft}
if [ ! -x "$perft" ]; then
    echo "error: $perft not found; run cargo build --release first" >&2
    exit 2
fi
depth=${1:-7}
shift || true
widths=("$@")
if [ ${#widths[@]} -eq 0 ]; then widths=(""); fi

# The positions: CPW "Perft Results" 2, 4, 4 mirrored, 5, 6 (standard.epd lines
# 2 and 4 to 7) and the first seven Chess960 positions (chess960.epd, move 9).
positions() {
    sed -n '2p;4,7p' positions/standard.epd
    sed -n '1,7p' positions/chess960.epd
}

# run ARGS...: prints "nodes rollbacks discarded fails bestmove" of one search.
run() {
    "$perft" search "$@" | awk '
        /^info depth / { for (i = 1; i < NF; i++) if ($i == "nodes") nodes = $(i + 1) }
        /^info string tt transactions/ {
            for (i = 1; i < NF; i++) {
                if ($i == "transactions") tx = $(i + 1)
                if ($i == "rollbacks") rb = $(i + 1)
                if ($i == "discarded") disc = $(i + 1)
            }
        }
        /^bestmove / { best = $2 }
        END { printf "%s %s %s %s %s\n", nodes, (rb == "" ? 0 : rb), (disc == "" ? 0 : disc), (tx == "" ? 0 : tx), best }'
}

for width in "${widths[@]}"; do
    asp=()
    label="default"
    if [ -n "$width" ]; then asp=(--aspiration "$width"); label="$width cp"; fi
    echo
    echo "depth $depth, aspiration $label"
    echo
    echo "| position | TT off | rollback | rollbacks | discarded | commit | windows (commit) | best move off / rollback / commit |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    t_off=0; t_rb=0; t_cm=0; t_rbs=0; t_disc=0
    n=0
    while IFS= read -r line; do
        n=$((n + 1))
        fen=$(echo "$line" | cut -d';' -f1 | awk '{print $1, $2, $3, $4, $5, $6}')
        read -r off _ _ _ b_off < <(run "$fen" --depth "$depth" --no-tt "${asp[@]}")
        read -r rb rbs disc _ b_rb < <(run "$fen" --depth "$depth" --on-fail rollback "${asp[@]}")
        read -r cm _ _ tx b_cm < <(run "$fen" --depth "$depth" --on-fail commit "${asp[@]}")
        echo "| $n \`${fen%% *}\` | $off | $rb | $rbs | $disc | $cm | $tx | $b_off / $b_rb / $b_cm |"
        t_off=$((t_off + off)); t_rb=$((t_rb + rb)); t_cm=$((t_cm + cm))
        t_rbs=$((t_rbs + rbs)); t_disc=$((t_disc + disc))
    done < <(positions)
    echo "| **total** | **$t_off** | **$t_rb** | **$t_rbs** | **$t_disc** | **$t_cm** | | |"
    awk -v off="$t_off" -v rb="$t_rb" -v cm="$t_cm" 'BEGIN {
        printf "\nrollback / off = %.3f, commit / off = %.3f, commit / rollback = %.3f\n", rb / off, cm / off, cm / rb }'
done
