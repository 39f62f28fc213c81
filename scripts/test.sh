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

cargo test --release "$@"

# Work units end to end through GNU parallel (a few seconds).
scripts/units_e2e.sh
