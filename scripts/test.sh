#!/usr/bin/env bash
# The test command of README.md: installs what the tests need on a fresh
# machine (Stockfish, the reference engine of the differential tests), then
# runs the whole test suite. Tests fail rather than skip without Stockfish.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v stockfish >/dev/null 2>&1 && [ ! -x /usr/games/stockfish ]; then
    echo "scripts/test.sh: installing stockfish (Debian package)" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq stockfish
fi

# tests/schemas.rs writes every JSON output it validates here, for the
# independent check with Python's jsonschema below.
dump=target/schema-dump
rm -rf "$dump"
# Profile `ci` (Cargo.toml): release without LTO, to keep the build short.
PERFT_SCHEMA_DUMP="$PWD/$dump" cargo test --profile ci "$@"

# The schemas, their examples and every dumped output, with Python's standard
# validator (a second implementation; installed with pip when missing).
python3 scripts/validate_json.py
if [ -d "$dump" ]; then
    python3 scripts/validate_json.py "$dump"
else
    echo "scripts/test.sh: no schema dump (the test filter left out tests/schemas.rs): Python check of the outputs NOT RUN" >&2
fi

# Work units end to end through GNU parallel (a few seconds).
scripts/units_e2e.sh
