#!/usr/bin/env bash
# A profile-guided (PGO) build of perft for record runs:
#   scripts/lab/pgo.sh [EPD ...]      (default: positions/speed.epd positions/standard.epd)
# 1. builds an instrumented binary (-Cprofile-generate) in target/pgo-gen;
# 2. trains it: `perft count` at each EPD line's deepest ;Dn of at most
#    TRAIN_NODES leaves (default 50M; one thread, no table; both counters)
#    plus a short `perft bench`;
# 3. merges the profile with the toolchain's llvm-profdata (rustup component
#    llvm-tools, added when missing) and builds target/pgo/release/perft with
#    -Cprofile-use.
# The default `cargo build --release` does not need this: docs/performance.md
# gives what it gains (or loses) per bin of the speed set on each machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

files=("$@")
[ ${#files[@]} -gt 0 ] || files=(positions/speed.epd positions/standard.epd)
for f in "${files[@]}"; do
    [ -r "$f" ] || { echo "scripts/lab/pgo.sh: $f: not a readable file" >&2; exit 2; }
done

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    rustup component add llvm-tools
fi
[ -x "$profdata" ] || { echo "scripts/lab/pgo.sh: $profdata missing after rustup component add llvm-tools" >&2; exit 1; }

data=$PWD/target/pgo-data
rm -rf "$data"; mkdir -p "$data"
echo "scripts/lab/pgo.sh: instrumented build" >&2
RUSTFLAGS="-Cprofile-generate=$data" cargo build --release --quiet --target-dir target/pgo-gen
gen=target/pgo-gen/release/perft

echo "scripts/lab/pgo.sh: training on ${files[*]}" >&2
for f in "${files[@]}"; do
    grep -v '^#' "$f" | grep ';D' | while IFS= read -r line; do
        fen=$(echo "$line" | cut -d';' -f1 | awk '{print $1, $2, $3, $4}')
        # The deepest ;Dn whose count is at most $TRAIN_NODES (default 50M):
        # a few tenths of a second each in the instrumented build.
        depth=$(echo "$line" | grep -o ';D[0-9]* [0-9]*' | tr -d ';D' |
            awk -v max="${TRAIN_NODES:-50000000}" '$2 <= max && $1 > d {d = $1} END {print d + 0}')
        [ "$depth" -ge 1 ] || continue
        "$gen" count "$depth" "$fen" --threads 1 --no-hash -q >/dev/null
        "$gen" count "$depth" "$fen" --threads 1 --no-hash --plain -q >/dev/null
    done
done
"$gen" bench --max-depth 5 -q >/dev/null

"$profdata" merge -o "$data/merged.profdata" "$data"
echo "scripts/lab/pgo.sh: optimised build with the profile" >&2
RUSTFLAGS="-Cprofile-use=$data/merged.profdata" cargo build --release --quiet --target-dir target/pgo
echo "target/pgo/release/perft"
