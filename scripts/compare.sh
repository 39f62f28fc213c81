#!/usr/bin/env bash
# Times `perft count` against Stockfish's `go perft` (and any other perft
# program you name) on the same positions, in one run: the programs take
# turns (interleaved), for several rounds, and the median time of each is
# compared. Single-threaded by default, no hash: like against like.
#
#   scripts/compare.sh [options] [DEPTH:POSITION ...]
#
#   DEPTH:POSITION   e.g. 7:startpos (the default), 5:kiwipete, "6:<FEN>"
#   --rounds N       rounds per position (default 3)
#   --threads N      threads for perft and Stockfish (default 1)
#   --hash SIZE      give perft a perft table (default: none, like Stockfish's
#                    go perft; with one, perft's speed is effective, not raw)
#   --stats          time `perft count --stats` (leaves counted and classified,
#                    no perft table) against the others' plain counts
#   --perft PATH     our binary (default target/release/perft)
#   --stockfish PATH Stockfish (default: stockfish on PATH, /usr/games/stockfish)
#   --no-stockfish   leave Stockfish out
#   --other 'NAME=COMMAND'  another perft program; {depth} and {fen} in COMMAND
#                    are replaced. If its output has qperft's per-depth line
#                    "perft( N)= COUNT ( T sec)" that time and count are used,
#                    otherwise the wall time of the whole command. Example:
#                    --other 'qperft=/opt/qperft {depth} "{fen}"'
#   --json           print the result table as JSON too
#
# Times: perft's own measurement (from --json); Stockfish's wall time minus
# the wall time of a `go perft 1` run in the same round (its start-up, mostly
# loading the network); other programs' own per-depth time when printed,
# else wall time.
#
# Every program's node count is checked against ours; a disagreement stops
# the script with exit 1.
set -euo pipefail

rounds=3; threads=1; perft=target/release/perft; json=0; hash=none
stockfish=${STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
use_sf=1; others=(); specs=(); stats=
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        --hash) hash=$2; shift 2 ;;
        --perft) perft=$2; shift 2 ;;
        --stockfish) stockfish=$2; shift 2 ;;
        --no-stockfish) use_sf=0; shift ;;
        --other) others+=("$2"); shift 2 ;;
        --json) json=1; shift ;;
        --stats) stats=--stats; shift ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        -*) echo "compare.sh: unknown option $1" >&2; exit 2 ;;
        *) specs+=("$1"); shift ;;
    esac
done
[ ${#specs[@]} -gt 0 ] || specs=("7:startpos")
[ -x "$perft" ] || { echo "compare.sh: $perft not found; build it with cargo build --release" >&2; exit 2; }
if [ $use_sf = 1 ] && [ ! -x "$stockfish" ]; then
    echo "compare.sh: Stockfish not found (apt-get install stockfish, or --stockfish PATH, or --no-stockfish)" >&2; exit 2
fi
case $rounds in ''|*[!0-9]*|0) echo "compare.sh: --rounds needs a positive integer" >&2; exit 2 ;; esac
if [ -n "$stats" ] && [ "$hash" != none ]; then
    echo "compare.sh: --stats counts without the perft table; drop --hash" >&2; exit 2
fi

now() { echo "$EPOCHREALTIME"; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.6f", a - b}'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.6f", (b > 0 ? a / b : 0)}'; }
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

run_ours() { # depth position -> "nodes seconds"
    "$perft" count "$1" "$2" --threads "$threads" --hash "$hash" $stats --json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["nodes"], r["seconds"])'
}
run_sf() { # depth fen c960 -> "nodes seconds"
    local t0 t1 out
    t0=$(now)
    out=$(printf 'setoption name Threads value %s\nsetoption name UCI_Chess960 value %s\nposition fen %s\ngo perft %s\nquit\n' \
        "$threads" "$3" "$2" "$1" | "$stockfish")
    t1=$(now)
    echo "$(echo "$out" | awk '/^Nodes searched/ {print $3}') $(sub "$t1" "$t0")"
}
sf_startup() { # wall time of Stockfish doing a trivial perft: start-up and NNUE load
    local t0 t1
    t0=$(now)
    printf 'position startpos\ngo perft 1\nquit\n' | "$stockfish" >/dev/null
    t1=$(now)
    sub "$t1" "$t0"
}
run_other() { # template depth fen -> "nodes seconds"
    local cmd=${1//\{depth\}/$2} t0 t1 out
    cmd=${cmd//\{fen\}/$3}
    t0=$(now); out=$(bash -c "$cmd" 2>&1); t1=$(now)
    local line
    line=$(echo "$out" | grep -E "perft\( *$2\) *= *[0-9]+" | tail -1 || true)
    if [ -n "$line" ]; then
        echo "$(echo "$line" | sed -E 's/.*= *([0-9]+).*/\1/') $(echo "$line" | sed -nE 's/.*\( *([0-9.]+) *sec.*/\1/p')"
    else
        echo "? $(sub "$t1" "$t0")"
    fi
}

printf '%-12s %5s %16s  %-10s %10s %9s\n' position depth nodes program seconds "vs ours"
json_rows=()
for spec in "${specs[@]}"; do
    depth=${spec%%:*}; pos=${spec#*:}
    fen=$("$perft" count 0 "$pos" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["fen"])')
    c960=false; castling=$(echo "$fen" | awk '{print $3}')
    echo "$castling" | grep -q '[A-Ha-h]' && c960=true
    declare -A times=(); names=(perft)
    [ $use_sf = 1 ] && names+=(stockfish)
    for o in "${others[@]}"; do names+=("${o%%=*}"); done
    expected=""
    for ((r = 0; r < rounds; r++)); do
        read -r n t < <(run_ours "$depth" "$pos"); expected=$n; times[perft]+="$t "
        if [ $use_sf = 1 ]; then
            read -r n t < <(run_sf "$depth" "$fen" "$c960")
            [ "$n" = "$expected" ] || { echo "compare.sh: Stockfish counts $n, perft $expected ($pos depth $depth)" >&2; exit 1; }
            # Our time is measured inside perft; take Stockfish's start-up out of its wall time.
            t=$(sub "$t" "$(sf_startup)")
            times[stockfish]+="$t "
        fi
        for o in "${others[@]}"; do
            read -r n t < <(run_other "${o#*=}" "$depth" "$fen")
            if [ "$n" != "?" ] && [ "$n" != "$expected" ]; then
                echo "compare.sh: ${o%%=*} counts $n, perft $expected ($pos depth $depth)" >&2; exit 1
            fi
            times[${o%%=*}]+="$t "
        done
    done
    ours=$(echo "${times[perft]}" | tr ' ' '\n' | grep . | median)
    for name in "${names[@]}"; do
        m=$(echo "${times[$name]}" | tr ' ' '\n' | grep . | median)
        ratio=$(div "$m" "$ours")
        printf '%-12s %5s %16s  %-10s %10.3f %8.2fx\n' "${pos:0:12}" "$depth" "$expected" "$name" "$m" "$ratio"
        json_rows+=("{\"position\":\"$pos\",\"depth\":$depth,\"nodes\":$expected,\"program\":\"$name\",\"median_seconds\":$m,\"time_vs_perft\":$ratio}")
    done
done
echo "(vs ours = that program's median time / ours: above 1 means perft is faster; $rounds rounds, $threads thread(s), perft table: $hash${stats:+, perft with --stats}, interleaved)"
if [ $json = 1 ]; then
    (IFS=,; echo "[${json_rows[*]}]")
fi
