#!/usr/bin/env bash
# Deterministic cost of the perft hot path, for comparing code variants on a
# busy machine: cachegrind's instruction count (Ir) and simulated branch
# mispredictions (Bcm + Bim) for single-threaded perft on the five positions of
# benches/versus.rs, one depth shallower.
#   scripts/lab/icount.sh [path/to/perft]   (default: target/native/release/perft)
# Timing is what counts in the end; this only ranks variants when wall-clock
# timing is too noisy. Needs valgrind.
set -euo pipefail
bin=${1:-target/native/release/perft}
total_ir=0; total_bm=0
for spec in "5 startpos" "4 kiwipete" "5 cpw3" "4 cpw4" "4 cpw5"; do
    set -- $spec
    out=$(valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes --cachegrind-out-file=/dev/null \
        "$bin" count "$1" "$2" -t 1 2>&1 >/dev/null)
    ir=$(echo "$out" | awk '/I *refs:/ {gsub(",","",$4); print $4}')
    bm=$(echo "$out" | awk '/Mispredicts:/ {gsub(",","",$3); print $3}')
    printf '%-9s D%s  Ir %14s  mispredicts %12s\n' "$2" "$1" "$ir" "$bm"
    total_ir=$((total_ir + ir)); total_bm=$((total_bm + bm))
done
printf 'total        Ir %14s  mispredicts %12s\n' "$total_ir" "$total_bm"
