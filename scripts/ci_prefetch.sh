#!/usr/bin/env bash
# Installs, in one go, everything the CI scripts would otherwise install one by
# one when they reach it: the Debian packages (stockfish, parallel, slurm-wlm,
# munge, qemu-user, gcc-aarch64-linux-gnu), the rustup targets of
# scripts/cross.sh and the Python packages (jsonschema, chess). .ci/run starts
# it in the background while fmt and clippy run, so a fresh machine's
# downloads overlap the compile, and waits for it before the tests.
#
# Only a head start: each script still checks for what it needs and installs
# it when missing, so a failure here is reported and does not stop CI (the
# script that needs the package then fails or says it did not run).
set -uo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
status=0

# Debian packages, by the command each one provides.
missing=()
for pair in stockfish:stockfish parallel:parallel slurmctld:slurm-wlm munged:munge \
    qemu-aarch64:qemu-user aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu; do
    cmd=${pair%%:*} pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/games/$cmd" ] || [ -x "/usr/sbin/$cmd" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "scripts/ci_prefetch.sh: apt-get install ${missing[*]}"
    { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"; } ||
        { echo "scripts/ci_prefetch.sh: apt-get install failed"; status=1; }
fi

# The standard libraries of scripts/cross.sh's targets.
installed=$(rustup target list --installed)
for t in aarch64-apple-darwin aarch64-unknown-linux-gnu x86_64-pc-windows-gnu; do
    grep -qx "$t" <<<"$installed" || rustup target add "$t" || { echo "scripts/ci_prefetch.sh: rustup target add $t failed"; status=1; }
done

# Python packages of scripts/validate_json.py and scripts/differential.py,
# through the installer those scripts use (scriptlib.ensure_module).
python3 -c 'import sys; sys.path.insert(0, "scripts")
from scriptlib import ensure_module
ensure_module("jsonschema", "jsonschema>=4.18", "ci_prefetch.sh")
ensure_module("chess", "chess", "ci_prefetch.sh")' || { echo "scripts/ci_prefetch.sh: pip install failed"; status=1; }
exit $status
