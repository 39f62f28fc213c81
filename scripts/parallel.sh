#!/usr/bin/env bash
# Counts every unit of a perft job (made by `perft split`) with GNU parallel,
# on this machine or on several over SSH, then merges the results.
#
#   scripts/parallel.sh JOB_DIR [options] [-- run-unit flags...]
#
# options:
#   -j, --jobs N        units at a time per machine (default: GNU parallel's
#                       default, one per CPU; give --threads 1 after `--`)
#   -S, --sshlogin L    run on L too (repeatable; GNU parallel's syntax, e.g.
#                       4/user@host, `:` for this machine). Every machine
#                       needs `perft` on its PATH and JOB_DIR at the same
#                       path (a shared file system: NFS, CephFS, ...).
#   --perft PATH        the perft binary (default: $PERFT, else `perft`)
#   --no-merge          do not run `perft merge` at the end
#
# Examples:
#   perft split 7 --split-ply 3 --units 16 --out w
#   scripts/parallel.sh w -j 2 -- --threads 1 --hash 512MiB
#   scripts/parallel.sh w -S 8/node1 -S 8/node2 -S : -- --threads 1 --hash 1GiB
#
# Resumable: a unit killed half-way (Ctrl-C, a lost SSH link, a reboot) keeps
# its finished records; running the same command again counts only what is
# left. Unit indices are 0-based: GNU parallel gets them from `seq`, not from
# its own 1-based {#}. Exit status: that of the merge (0 = total printed),
# or GNU parallel's (the number of failed units) if a unit failed.
set -euo pipefail

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac
dir=$1; shift
perft=${PERFT:-perft}
jobs=()
logins=()
merge=1
while [ $# -gt 0 ]; do
    case "$1" in
        -j|--jobs) jobs=(-j "$2"); shift 2 ;;
        -S|--sshlogin) logins+=(--sshlogin "$2"); shift 2 ;;
        --perft) perft=$2; shift 2 ;;
        --no-merge) merge=0; shift ;;
        --) shift; break ;;
        -h|--help) usage ;;
        *) echo "scripts/parallel.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
command -v parallel >/dev/null || { echo "scripts/parallel.sh: GNU parallel not found (apt-get install parallel)" >&2; exit 2; }
[ -f "$dir/manifest.json" ] || { echo "scripts/parallel.sh: $dir: not a perft job directory (no manifest.json)" >&2; exit 2; }

# Units are unit-00000.jsonl ... (result files end in .result.jsonl).
units=$(find "$dir" -maxdepth 1 -name 'unit-*.jsonl' ! -name '*.result.jsonl' | wc -l)
[ "$units" -gt 0 ] || { echo "scripts/parallel.sh: $dir has no unit files" >&2; exit 2; }
# Remote machines need absolute paths.
abs_dir=$(cd "$dir" && pwd)
if [ ${#logins[@]} -gt 0 ] && [[ "$perft" == */* ]]; then
    perft=$(cd "$(dirname "$perft")" && pwd)/$(basename "$perft")
fi

echo "scripts/parallel.sh: $units units of $abs_dir" >&2
status=0
seq 0 $((units - 1)) | parallel --halt never "${jobs[@]}" "${logins[@]}" \
    "$(printf '%q' "$perft")" run-unit "$(printf '%q' "$abs_dir")" --index '{}' "$@" || status=$?
if [ "$status" -ne 0 ]; then
    echo "scripts/parallel.sh: $status unit(s) failed or were interrupted; run the same command again to resume" >&2
    exit "$status"
fi
if [ "$merge" = 1 ]; then
    exec "$perft" merge "$dir"
fi
