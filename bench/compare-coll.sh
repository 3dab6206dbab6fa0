#!/usr/bin/env bash
# Tutti's collectives against Open MPI's (C, bench/ompi/coll.c, --mca btl self,vader) on this
# machine, in alternating runs: each round runs, for every op and rank count, Tutti then Open MPI,
# so slow phases of the machine hit both alike. Both use the same method (OSU: each rank times its
# own loop, the figure is the average over the ranks of the time per operation, in µs).
# Prints a Markdown table of the medians over the rounds, ready for docs/perf/collectives.md,
# then every run's figure.
#
# Usage: bench/compare-coll.sh [-r ROUNDS] [--ops LIST] [--np LIST] [--sizes LIST]
#                              [--iters N] [--warmup N] [--load N] [--tutti-opt OPT]...
#   -r ROUNDS      rounds (default 5)
#   --ops LIST     comma separated (default: barrier,bcast,reduce,allreduce,scatter,gather,
#                  allgather,alltoall,reducescatter,shift); reduce_scatter_block = reducescatter
#   --np LIST      rank counts (default 2,4); Open MPI oversubscribes above the core count
#   --sizes LIST   bytes per rank (default 8,1024,65536,1048576); barrier has none
#   --load N       N busy processes run beside every run (default 0): the comparison on a loaded machine
#   --tutti-opt    an extra option for `tutti bench` (repeatable), e.g. --tutti-opt --blocking
# Raw output in bench/ompi/build/compare-coll/. A run that fails shows as "failed" (e.g. an op
# this build does not have yet); the Open MPI column says "skipped" when mpicc/mpirun are absent.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/ompi/build/compare-coll"

rounds=5
ops="barrier,bcast,reduce,allreduce,scatter,gather,allgather,alltoall,reducescatter,shift"
nps="2,4"
sizes="8,1024,65536,1048576"
iters=()
tutti_opts=()
load=0
usage() { sed -n '9,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        -r|--rounds) [[ $# -ge 2 ]] || usage; rounds="$2"; shift 2 ;;
        --ops) [[ $# -ge 2 ]] || usage; ops="$2"; shift 2 ;;
        --np) [[ $# -ge 2 ]] || usage; nps="$2"; shift 2 ;;
        --sizes) [[ $# -ge 2 ]] || usage; sizes="$2"; shift 2 ;;
        --iters|--warmup) [[ $# -ge 2 ]] || usage; iters+=("$1" "$2"); shift 2 ;;
        --tutti-opt) [[ $# -ge 2 ]] || usage; tutti_opts+=("$2"); shift 2 ;;
        --load) [[ $# -ge 2 ]] || usage; load="$2"; shift 2 ;;
        -h|--help) usage ;;
        *) echo "compare-coll: unknown argument '$1'" >&2; usage ;;
    esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare-coll: -r takes a positive number" >&2; exit 2; }

have_ompi=1
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    have_ompi=0
    echo "# Open MPI not installed (apt-get install -y openmpi-bin libopenmpi-dev): Tutti column only"
fi

tutti_name() { [[ "$1" == reduce_scatter_block ]] && echo reducescatter || echo "$1"; }
IFS=, read -r -a op_list <<< "$ops"
IFS=, read -r -a np_list <<< "$nps"

rm -rf "$out"
mkdir -p "$out"
"$root/tutti" --version >/dev/null   # build once, outside the runs
date_started="$(date -u '+%Y-%m-%d %H:%M UTC')"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck source=load.sh
. "$here/load.sh"
start_load "$load"

for r in $(seq 1 "$rounds"); do
    for op in "${op_list[@]}"; do
        op="$(tutti_name "$op")"
        for np in "${np_list[@]}"; do
            "$root/tutti" bench "$op" -n "$np" --sizes "$sizes" --timeout 10m "${iters[@]}" "${tutti_opts[@]}" \
                > "$out/tutti-$op-np$np.$r" 2>&1 || echo "FAILED" >> "$out/tutti-$op-np$np.$r"
            if [[ "$have_ompi" == 1 ]]; then
                timeout 600 "$here/ompi/coll.sh" "$op" -np "$np" --sizes "$sizes" "${iters[@]}" \
                    > "$out/ompi-$op-np$np.$r" 2>&1 || echo "FAILED" >> "$out/ompi-$op-np$np.$r"
            fi
        done
    done
    echo "# round $r of $rounds done" >&2
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
stop_load

# The values of column 2 in the rows whose column 1 is the size, one per run.
values() {
    local impl="$1" op="$2" np="$3" size="$4"
    cat "$out/$impl-$op-np$np".* 2>/dev/null | awk -v s="$size" '$1 !~ /^#/ && $1 == s { print $2 }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
cell() {
    local impl="$1" op="$2" np="$3" size="$4" v
    if [[ "$impl" == ompi && "$have_ompi" == 0 ]]; then echo skipped; return; fi
    v="$(values "$impl" "$op" "$np" "$size" | median)"
    if [[ -n "$v" ]]; then echo "$v"
    elif grep -qs FAILED "$out/$impl-$op-np$np".*; then echo failed
    else echo "n/a"; fi
}

echo
echo "Date: $date_started; $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); load average before/after: $load_before / $load_after"
[[ "$load" == 0 ]] || echo "Background load: $load busy process(es) beside every run."
echo "Medians of $rounds alternating rounds; µs per operation, average over the ranks (OSU method)."
echo
echo "| op | np | size (B) | Tutti median (µs) | Open MPI median (µs) | Tutti / Open MPI |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
IFS=, read -r -a size_list <<< "$sizes"
for op in "${op_list[@]}"; do
    op="$(tutti_name "$op")"
    for np in "${np_list[@]}"; do
        if [[ "$op" == barrier ]]; then row_sizes=(0); else row_sizes=(); for s in "${size_list[@]}"; do
            # reductions measure whole doubles, at least one; k and m suffixes as tutti bench
            s="$(echo "$s" | awk '{ v = $1; m = 1; if (v ~ /[kK]$/) m = 1024; if (v ~ /[mM]$/) m = 1048576; sub(/[kKmM]$/, "", v); print v * m }')"
            case "$op" in reduce|allreduce|reducescatter) s=$(( s / 8 > 0 ? s / 8 * 8 : 8 )) ;; esac
            row_sizes+=("$s"); done; fi
        for size in "${row_sizes[@]}"; do
            t="$(cell tutti "$op" "$np" "$size")"
            o="$(cell ompi "$op" "$np" "$size")"
            ratio="—"
            if [[ "$t" =~ ^[0-9.e+-]+$ && "$o" =~ ^[0-9.e+-]+$ ]]; then
                ratio="$(awk -v a="$t" -v b="$o" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "—" }')"
            fi
            [[ "$op" == barrier ]] && shown="—" || shown="$size"
            echo "| $op | $np | $shown | $t | $o | $ratio |"
        done
    done
done

echo
echo "Every run (µs, in round order):"
for op in "${op_list[@]}"; do
    op="$(tutti_name "$op")"
    for np in "${np_list[@]}"; do
        for impl in tutti ompi; do
            [[ "$impl" == ompi && "$have_ompi" == 0 ]] && continue
            sizes_seen="$(cat "$out/$impl-$op-np$np".* 2>/dev/null | awk '$1 !~ /^#/ && $1 ~ /^[0-9]+$/ { print $1 }' | sort -nu)"
            for size in $sizes_seen; do
                printf '  %-6s %-14s np%-3s %-9s %s\n' "$impl" "$op" "$np" "$size" "$(values "$impl" "$op" "$np" "$size" | tr '\n' ' ')"
            done
        done
    done
done
