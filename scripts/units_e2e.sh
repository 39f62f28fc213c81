#!/usr/bin/env bash
# End-to-end test of work units through GNU parallel (run by scripts/test.sh):
# split the start position's perft 6 at ply 2 into 8 units, count them with
# scripts/parallel.sh, and check the merged total against the published
# 119,060,324 (positions/standard.epd). Fails (exit 1) on any other total;
# installs GNU parallel when it is missing, and fails if it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v parallel >/dev/null 2>&1; then
    echo "scripts/units_e2e.sh: installing GNU parallel (Debian package)" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq parallel
fi

# The binary scripts/test.sh built (profile `ci`: release without LTO).
# `cargo test --no-run`, not `cargo build`: the dev-dependencies turn on
# features of shared dependencies (serde, hashbrown, nix, ...), so a plain
# `cargo build` after the tests resolves other features and compiles those
# dependencies and the whole library again (3 min 18 s of a 17 min CI run).
# After scripts/test.sh this is a no-op that links target/ci/perft to the
# tests' binary.
cargo test --profile ci --no-run -q
export PERFT=$PWD/target/ci/perft
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$PERFT" split 6 --split-ply 2 --units 8 --out "$work/job" >/dev/null
scripts/parallel.sh "$work/job" -j 2 --no-merge -- --threads 1 >/dev/null
# A second run finds every unit complete and counts nothing.
again=$(scripts/parallel.sh "$work/job" -j 2 --no-merge -- --threads 1)
if [ "$(grep -c ' 0 counted now' <<<"$again")" != 8 ]; then
    echo "scripts/units_e2e.sh: FAIL: a second run counted again:" >&2
    echo "$again" >&2
    exit 1
fi
total=$("$PERFT" merge "$work/job" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["nodes_str"])')
if [ "$total" != 119060324 ]; then
    echo "scripts/units_e2e.sh: FAIL: GNU parallel run of perft 6 gave $total, expected 119060324" >&2
    exit 1
fi
echo "scripts/units_e2e.sh: GNU parallel: perft 6 in 8 units = $total (ok)" >&2
