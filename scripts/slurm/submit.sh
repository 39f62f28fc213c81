#!/usr/bin/env bash
# Submits a perft job to Slurm: one array task per unit
# (--array=0-(U-1), scripts/slurm/perft.sbatch), then the merge
# (scripts/slurm/merge.sbatch) once every task has ended. Prints both job ids.
#
#   scripts/slurm/submit.sh JOB_DIR [sbatch options for the array...] [-- run-unit flags...]
#
# Example (16 units, 1 CPU and 2 GiB each, at most 8 at a time):
#   perft split 7 --split-ply 3 --units 16 --out /shared/w
#   scripts/slurm/submit.sh /shared/w --mem=2G --array-limit=8 -- --hash 1GiB
# Then: squeue; cat /shared/w/merge.txt
#
# Set $PERFT to the binary's absolute path if `perft` is not on the nodes' PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: submit.sh JOB_DIR [sbatch options] [-- run-unit flags]}
shift
[ -f "$dir/manifest.json" ] || { echo "submit.sh: $dir: not a perft job directory (no manifest.json)" >&2; exit 2; }
dir=$(cd "$dir" && pwd)
opts=()
limit=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case "$1" in
        --array-limit=*) limit="%${1#--array-limit=}" ;;
        *) opts+=("$1") ;;
    esac
    shift
done
[ "${1:-}" = -- ] && shift
units=$(find "$dir" -maxdepth 1 -name 'unit-*.jsonl' ! -name '*.result.jsonl' | wc -l)
array=$(sbatch --parsable --array="0-$((units - 1))$limit" \
    --output="$dir/slurm-%A_%a.out" --export=ALL "${opts[@]}" \
    "$here/perft.sbatch" "$dir" "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterany:$array" \
    --output="$dir/slurm-merge-%j.out" --export=ALL \
    "$here/merge.sbatch" "$dir")
merge=${merge%%;*}
echo "array job $array ($units units), merge job $merge" >&2
echo "$array $merge"
