#!/usr/bin/env bash
# The non-x86 code paths (src/chess/cpu.rs's portable lookups, src/perft/memory.rs's
# allocation without mmap) compiled and, for aarch64 Linux, run:
#   1. `cargo check` for aarch64-apple-darwin and x86_64-pc-windows-gnu (rustup adds
#      the targets' standard libraries);
#   2. an aarch64 Linux build (profile `cross`: unoptimised, with debug
#      assertions; -D warnings), linked by
#      gcc-aarch64-linux-gnu, runs `perft suite positions/standard.epd
#      --max-depth 4` under qemu-user: every count of the published suite
#      must match (exit 0).
# Installs what it needs (rustup targets, Debian's qemu-user and
# gcc-aarch64-linux-gnu) when missing. Called by .ci/run; about 2 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

TARGETS=(aarch64-apple-darwin aarch64-unknown-linux-gnu x86_64-pc-windows-gnu)
installed=$(rustup target list --installed)
for t in "${TARGETS[@]}"; do
    grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

if ! command -v qemu-aarch64 >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
    echo "scripts/cross.sh: installing qemu-user and gcc-aarch64-linux-gnu (Debian packages)" >&2
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq qemu-user gcc-aarch64-linux-gnu
fi

# One cargo call for both checks (their dependencies build in parallel); the
# aarch64 Linux build below is that target's check.
echo "scripts/cross.sh: cargo check --profile ci --target aarch64-apple-darwin --target x86_64-pc-windows-gnu" >&2
RUSTFLAGS="-D warnings" cargo check --profile ci --quiet \
    --target aarch64-apple-darwin --target x86_64-pc-windows-gnu

# Profile `cross` (Cargo.toml): no optimisation, debug assertions on. It
# builds in about a minute (profile `ci`'s optimised build took 2-3.5 minutes)
# and the suite below still runs in about a second under qemu.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
echo "scripts/cross.sh: aarch64 build (-D warnings), standard suite to depth 4 under qemu-aarch64" >&2
RUSTFLAGS="-D warnings" cargo build --profile cross --target aarch64-unknown-linux-gnu --quiet
bin=target/aarch64-unknown-linux-gnu/cross/perft
# ELF e_machine (bytes 18-19, little-endian) is 0xb7 for AArch64.
[ "$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' \n')" = "b700" ] ||
    { echo "scripts/cross.sh: $bin is not an aarch64 binary" >&2; exit 1; }
qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" --version
qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" suite positions/standard.epd --max-depth 4
echo "scripts/cross.sh: aarch64 suite passed" >&2
