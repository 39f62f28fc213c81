#!/usr/bin/env bash
# How perft scales on this machine, in one run: scripts/scaling.sh [OUT_DIR]
#
# Thread counts 1, 2, 4, ... up to every logical CPU:
#   1. `perft bench --ceiling`: no table, each thread count against as many
#      independent single-thread counters (the machine's ceiling);
#   2. `perft bench` with a 1 GiB table in every sync mode (lockless,
#      striped, mutex) at every thread count;
#   3. `perft count 8` (start position) with a 4 GiB table in every sync
#      mode and without a table, and Kiwipete 6 without a table, at one
#      thread and at every logical CPU;
#   4. `perft search --bench --threads LIST`;
#   5. a deep perft (start position, depth 10 with 16+ CPUs and 64+ GiB, 9
#      with 4+ CPUs, else 8) at every logical CPU with a table of half the
#      memory.
# Writes OUT_DIR/<step>.json (each a perft report), OUT_DIR/scaling.json
# (all of them in one document, with a summary) and OUT_DIR/scaling.svg
# (the bench's Mnps against threads, with linear scaling and the ceiling),
# and prints the summary. Needs only the perft binary and python3 (standard
# library; without python3 the per-step JSON files are still written).
#
# PERFT=path picks the binary (default: target/release/perft, else perft on
# PATH). SCALING_QUICK=1 runs only one thread and every logical CPU, and no
# deep perft beyond depth 9 (about 5 minutes on 16 cores instead of 15-20).
set -euo pipefail
cd "$(dirname "$0")/.."

perft=${PERFT:-}
if [ -z "$perft" ]; then
    if [ -x target/release/perft ]; then perft=target/release/perft
    elif command -v perft >/dev/null 2>&1; then perft=$(command -v perft)
    else
        echo "scaling.sh: no perft binary: build one (cargo build --release) or set PERFT" >&2
        exit 2
    fi
fi
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
mem_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
out=${1:-scaling-$(hostname -s 2>/dev/null || echo host)-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"

list=1
if [ "${SCALING_QUICK:-0}" = 1 ]; then
    [ "$cpus" -gt 1 ] && list="1,$cpus"
else
    t=2
    while [ "$t" -lt "$cpus" ]; do list="$list,$t"; t=$((t * 2)); done
    [ "$cpus" -gt 1 ] && list="$list,$cpus"
fi
deep=8
if [ "$cpus" -ge 4 ]; then deep=9; fi
if [ "$cpus" -ge 16 ] && [ "$mem_kib" -ge $((64 * 1024 * 1024)) ] && [ "${SCALING_QUICK:-0}" != 1 ]; then
    deep=10
fi
half_mib=$((mem_kib / 2048))

log() { echo "scaling.sh: $*" >&2; }
step() { # NAME ARGS...: perft ARGS --json > OUT/NAME.json, timed
    local name=$1; shift
    log "$name: perft $*"
    local begun=$SECONDS
    "$perft" "$@" --json >"$out/$name.json" || {
        local code=$?
        log "$name: exit $code (see $out/$name.json)"
        [ "$code" = 1 ] && return 0 # a count mismatch is in the report
        return "$code"
    }
    log "$name: $((SECONDS - begun)) s"
}

log "$("$perft" --version | head -1); $cpus logical CPUs, $((mem_kib / 1024)) MiB; threads $list; out $out"
step bench bench --threads "$list" --ceiling
step bench-table bench --threads "$list" --hash 1GiB --hash-sync lockless,striped,mutex
ends=1
[ "$cpus" -gt 1 ] && ends="1 $cpus"
for threads in $ends; do
    step "kiwipete6-t$threads" count 6 kiwipete --threads "$threads" --no-hash
    step "start8-t$threads-none" count 8 --threads "$threads" --no-hash
    for mode in lockless striped mutex; do
        step "start8-t$threads-$mode" count 8 --threads "$threads" --hash 4GiB --hash-sync "$mode"
    done
done
step search-bench search --bench --threads "$list"
step "deep$deep" count "$deep" --threads "$cpus" --hash "${half_mib}MiB"

if ! command -v python3 >/dev/null 2>&1; then
    log "no python3: the per-step reports are in $out; no scaling.json or SVG"
    exit 0
fi
python3 - "$out" "$cpus" <<'PY'
import json, os, sys

out, cpus = sys.argv[1], int(sys.argv[2])
steps = {}
for name in sorted(os.listdir(out)):
    if name.endswith(".json") and name != "scaling.json":
        with open(os.path.join(out, name), encoding="utf-8") as f:
            steps[name[:-5]] = json.load(f)

summary = []
bench = steps.get("bench")
if bench:
    summary.append(f"bench ({bench.get('depth_set')} depth set, signature {bench['signature']:,}):")
    for run in bench["runs"]:
        c = run.get("ceiling") or {}
        summary.append(
            f"  {run['threads']:>4} threads  {run['mnps']:>10.1f} Mnps  "
            f"{c.get('run_efficiency', run['efficiency']) * 100:5.1f} % of linear  "
            f"ceiling {c.get('efficiency', float('nan')) * 100:5.1f} % of linear  "
            f"run {c.get('of_ceiling', float('nan')) * 100:5.1f} % of the ceiling"
        )
k1, kn = steps.get("kiwipete6-t1"), steps.get(f"kiwipete6-t{cpus}")
if k1 and kn and kn is not k1:
    speedup = k1["seconds"] / kn["seconds"]
    summary.append(
        f"Kiwipete 6, no table: {k1['seconds']:.3f} s on 1 thread, {kn['seconds']:.3f} s on {cpus}: "
        f"{speedup:.2f}x, {speedup / cpus * 100:.1f} % of linear"
    )
table = steps.get("bench-table")
if table:
    summary.append("bench with a 1 GiB table (effective Mnps, hit rate, set-up):")
    for run in table["runs"]:
        t = run.get("table") or {}
        summary.append(
            f"  {run['threads']:>4} threads  {run['hash']:<20} {run['mnps']:>10.1f} Mnps  "
            f"hits {run['hit_rate'] * 100:5.1f} %  busy {t.get('busy_probes', 0) + t.get('busy_stores', 0):,}  "
            f"set-up {t.get('setup_seconds', 0):.3f} s"
        )
for threads in (1, cpus):
    rows = []
    for mode in ("none", "lockless", "striped", "mutex"):
        r = steps.get(f"start8-t{threads}-{mode}")
        if r:
            t = r.get("table") or {}
            rows.append(
                f"  {mode:<9} {r['seconds']:8.3f} s count + {t.get('setup_seconds', 0):6.3f} s set-up, "
                f"hits {t.get('hit_rate', 0) * 100:5.1f} %, min hash depth {t.get('min_hash_depth', '-')}"
            )
    if rows:
        summary.append(f"start position perft 8, {threads} thread(s), 4 GiB table:")
        summary.extend(rows)
for name, r in steps.items():
    if name.startswith("deep"):
        t = r.get("table") or {}
        summary.append(
            f"start position perft {r['depth']}: {r['nodes']:,} in {r['seconds']:.1f} s "
            f"(+ {t.get('setup_seconds', 0):.1f} s to set up {t.get('hash_bytes', 0) / 2**30:.0f} GiB), "
            f"{r['nps'] / 1e9:.1f} G effective nps, {r['threads']} threads"
        )
s = steps.get("search-bench")
if s:
    summary.append("search --bench: " + ", ".join(
        f"{run.get('threads')} threads {run.get('nps', 0) / 1e6:.1f} M nps" for run in s.get("runs", [])
    ))

doc = {
    "kind": "scaling",
    "machine": (bench or {}).get("machine"),
    "build": (bench or {}).get("build"),
    "summary": summary,
    "steps": steps,
}
with open(os.path.join(out, "scaling.json"), "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
print("\n".join(summary))
PY
if [ -f "$out/bench.json" ]; then
    python3 scripts/plot_scaling.py "$out/bench.json" "$out/scaling.svg"
fi
log "done: $out/scaling.json, $out/scaling.svg"
