#!/usr/bin/env bash
# End-to-end test of the Slurm array job (run by .ci/run): installs
# slurm-wlm and munge if needed, starts the one-node cluster of
# local-cluster.sh, splits the start position's perft 6 at ply 2 into 8
# units, submits the array job and the dependent merge (submit.sh), and
# checks the merged total against the published 119,060,324
# (positions/standard.epd).
#
# Exit 0: the total is right. Exit 1: the packages are installed but the
# cluster did not come up, a job failed, or the total is wrong. When the
# packages cannot be installed (no root, no network) it prints in capitals
# that the test was NOT RUN and exits 0: a machine without Slurm cannot run
# it, and says so.
set -euo pipefail
cd "$(dirname "$0")/../.."

not_run() {
    echo "==================================================================" >&2
    echo "SLURM END-TO-END TEST NOT RUN: $*" >&2
    echo "==================================================================" >&2
    exit 0
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    echo "scripts/slurm/e2e.sh: installing slurm-wlm and munge" >&2
    { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq slurm-wlm munge; } >/dev/null 2>&1 \
        || not_run "could not install slurm-wlm and munge with apt-get"
fi
[ "$(id -u)" = 0 ] || not_run "the one-node cluster needs root (its daemons run as root)"

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
state=$work/slurm
cleanup() { scripts/slurm/local-cluster.sh stop "$state" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

fail() { echo "scripts/slurm/e2e.sh: FAIL: $*" >&2; tail -20 "$state"/*.log >&2 2>/dev/null || true; exit 1; }

eval "$(scripts/slurm/local-cluster.sh start "$state")" || fail "the one-node cluster did not start"
"$PERFT" split 6 --split-ply 2 --units 8 --out "$work/job" >/dev/null
read -r array merge < <(scripts/slurm/submit.sh "$work/job" -- --hash none)
for _ in $(seq 600); do
    [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
    sleep 0.5
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] || fail "jobs still queued after 5 minutes: $(squeue)"
[ -f "$work/job/merge.json" ] || fail "the merge job wrote no merge.json: $(cat "$work"/job/slurm-merge-*.out 2>/dev/null)"
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("nodes_str"))' "$work/job/merge.json")
if [ "$total" != 119060324 ]; then
    cat "$work"/job/merge.txt "$work"/job/slurm-*.out >&2 2>/dev/null || true
    fail "Slurm array job of perft 6 gave $total, expected 119060324"
fi
echo "scripts/slurm/e2e.sh: Slurm array job $array + merge job $merge: perft 6 in 8 units = $total (ok)" >&2
