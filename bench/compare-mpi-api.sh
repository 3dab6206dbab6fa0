#!/usr/bin/env bash
# The cost of the mpi layer (tutti-mpi, Open MPI's Java bindings' API) over io.tutti: the one
# program bench/mpi/ApiOverhead.java, whose loops call either API, compiled with tutti-mpijavac and
# run with tutti-mpirun by turns (each round runs every configuration once, so slow phases of the
# machine hit both alike). Prints every run's figure, the medians, and mpi / tutti per figure
# (latency and allreduce: above 1 is the layer's cost; bandwidth: below 1 is).
#
# Usage: bench/compare-mpi-api.sh [ROUNDS] [--load N] [--warm SECONDS] [--only NAME,...] [--paired]
#   ROUNDS        rounds (default 5; raw output in bench/mpi/build/compare/)
#   --load N      N busy processes beside every configuration (default 0)
#   --warm S      untimed seconds of each loop before it is timed (default 3)
#   --only NAMES  these figures only (comma-separated names of the list below), for more rounds of one
#   --paired      both APIs in one job per figure and round, by turns in blocks (ApiOverhead both):
#                 mpi/tutti is then the median of the jobs' paired ratios
# Figures: latency-8, latency-1m, bw-8, bw-1m (2 ranks), allreduce-8-np2, allreduce-8-np4.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds=5
load=0
warm=3
only=""
paired=0
usage() { sed -n '8,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --load) [[ $# -ge 2 ]] || usage; load="$2"; shift 2 ;;
        --warm) [[ $# -ge 2 ]] || usage; warm="$2"; shift 2 ;;
        --only) [[ $# -ge 2 ]] || usage; only="$2"; shift 2 ;;
        --paired) paired=1; shift ;;
        -h|--help) usage ;;
        [1-9]*) rounds="$1"; shift ;;
        *) echo "compare-mpi-api: unknown argument '$1'" >&2; usage ;;
    esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare-mpi-api: ROUNDS must be a positive number" >&2; exit 2; }
[[ "$warm" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "compare-mpi-api: --warm takes seconds, e.g. 3" >&2; exit 2; }
# shellcheck source=load.sh
. "$here/load.sh"
build="$here/mpi/build"
out="$build/compare"
rm -rf "$out"
mkdir -p "$out"
"$root/tutti-mpijavac" -d "$build" "$here/mpi/ApiOverhead.java"

# name | ranks | benchmark | size
figures=("latency-8|2|latency|8" "latency-1m|2|latency|1048576" "bw-8|2|bw|8" "bw-1m|2|bw|1048576"
         "allreduce-8-np2|2|allreduce|8" "allreduce-8-np4|4|allreduce|8")
if [[ -n "$only" ]]; then
    kept=()
    for f in "${figures[@]}"; do
        [[ ",$only," == *",${f%%|*},"* ]] && kept+=("$f")
    done
    [[ ${#kept[@]} -gt 0 ]] || { echo "compare-mpi-api: --only names none of: latency-8 latency-1m bw-8 bw-1m allreduce-8-np2 allreduce-8-np4" >&2; exit 2; }
    figures=("${kept[@]}")
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
start_load "$load"
for r in $(seq 1 "$rounds"); do
    for f in "${figures[@]}"; do
        IFS='|' read -r name np bench size <<< "$f"
        apis="mpi tutti"
        [[ $paired -eq 1 ]] && apis=both
        for api in $apis; do
            "$root/tutti-mpirun" -np "$np" --oversubscribe java -cp "$build" ApiOverhead "$api" "$bench" "$size" "$warm" \
                > "$out/$name.$api.$r" 2>&1 || echo "# exit $?" >> "$out/$name.$api.$r"
        done
    done
    echo "# round $r of $rounds done"
done
stop_load

median_of() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
runs() {  # the figures of figure $1 through api $2 (mpi, tutti, or ratio when paired) over the rounds
    cat "$out/$1".*.* | awk -v api="$2" '$1 == "RESULT" && $3 == api { print $5 }'
}
{
printf '%-18s %6s %12s %12s %10s  %s\n' "figure" "unit" "mpi" "tutti" "mpi/tutti" "runs (mpi | tutti)"
for f in "${figures[@]}"; do
    IFS='|' read -r name np bench size <<< "$f"
    unit=$(cat "$out/$name".*.* | awk '$1 == "RESULT" && $3 == "tutti" { print $6; exit }')
    m=$(runs "$name" mpi | median_of)
    t=$(runs "$name" tutti | median_of)
    ratio=$(awk -v m="${m:-0}" -v t="${t:-0}" 'BEGIN { printf (t > 0 && m > 0 ? "%.3f" : "-"), m / t }')
    [[ $paired -eq 1 ]] && ratio="$(runs "$name" ratio | median_of)"
    printf '%-18s %6s %12s %12s %10s  %s | %s%s\n' "$name" "${unit:--}" "${m:--}" "${t:--}" "${ratio:--}" \
        "$(runs "$name" mpi | tr '\n' ' ')" "$(runs "$name" tutti | tr '\n' ' ')" \
        "$([[ $paired -eq 1 ]] && echo " | paired ratios $(runs "$name" ratio | tr '\n' ' ')")"
done
} | tee "$out/summary.txt"
