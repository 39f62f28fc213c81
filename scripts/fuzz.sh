#!/usr/bin/env bash
# Runs one cargo-fuzz target for a number of seconds:
#   scripts/fuzz.sh TARGET SECONDS [EXTRA LIBFUZZER ARGS...]
# TARGET is fen, epd, uci or play (fuzz/fuzz_targets/). Installs cargo-fuzz
# when missing and uses the nightly toolchain (`rustup toolchain install
# nightly` if it is not there); `cargo test` never needs either.
# The corpus grows in fuzz/corpus/TARGET (only the committed seed-* files
# are tracked); a crash lands in fuzz/artifacts/TARGET and fails the run.
# libFuzzer's last "#N DONE cov: C ft: F" line gives executions and coverage.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [LIBFUZZER ARGS...]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
case $target in
    fen | epd | uci | play) ;;
    *)
        echo "scripts/fuzz.sh: unknown target '$target' (fen, epd, uci, play)" >&2
        exit 2
        ;;
esac

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz
fi

mkdir -p "fuzz/corpus/$target"
# -rss_limit_mb: a FEN or command that makes us allocate gigabytes is a bug.
# Each input is capped at 4 KiB, more than any real FEN, EPD line or session.
cd fuzz
exec cargo +nightly fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 "$@"
