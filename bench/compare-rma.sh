#!/usr/bin/env bash
# Tutti's one-sided benchmarks against Open MPI's (C, bench/ompi/onesided.c) on this machine, in
# alternating runs: each round runs every configuration once, so slow phases of the machine hit both
# alike. Prints every run's figure, per configuration the median over the rounds, and per benchmark
# and size the ratio Tutti / Open MPI (latency: lower is better; bandwidth: higher is better).
#
# Usage: bench/compare-rma.sh [ROUNDS] [--sizes LIST] [--modes LIST] [--sync S] [--win W] [--net]
#                             [--iters N] [--warmup N] [--load N]
#   ROUNDS       rounds (default 5; raw output in bench/ompi/build/compare-rma/)
#   --sizes LIST sizes in bytes, comma separated (default 8,1048576)
#   --modes LIST benchmarks (default put,get,acc,putbw; also getbw)
#   --sync S     OSU's -s on both sides: flush (default), flush_local, lock, lock_all, fence, pscw
#   --win W      OSU's -w on both sides: allocate (default), create, dynamic
#   --net        Tutti with --transport net, Open MPI over loopback TCP (btl self,tcp)
#   --iters N, --warmup N   iterations per size on both sides (default: OSU's counts)
#   --load N     N busy processes beside every configuration (default 0)
# The tutti command is ./tutti unless TUTTI_CMD names another (e.g. a wrapper of an assembly); the
# raw output goes to COMPARE_OUT if set.
# Skips the Open MPI columns (and says so) when mpicc/mpirun are not installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
tutti="${TUTTI_CMD:-$root/tutti}"
rounds=5
load=0
sizes="8,1048576"
modes="put,get,acc,putbw"
sync="flush"
win="allocate"
net=0
counts=()
usage() { sed -n '7,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sizes) [[ $# -ge 2 ]] || usage; sizes="$2"; shift 2 ;;
        --modes) [[ $# -ge 2 ]] || usage; modes="$2"; shift 2 ;;
        --sync) [[ $# -ge 2 ]] || usage; sync="$2"; shift 2 ;;
        --win) [[ $# -ge 2 ]] || usage; win="$2"; shift 2 ;;
        --net) net=1; shift ;;
        --iters|--warmup) [[ $# -ge 2 ]] || usage; counts+=("$1" "$2"); shift 2 ;;
        --load) [[ $# -ge 2 ]] || usage; load="$2"; shift 2 ;;
        -h|--help) usage ;;
        [1-9]*) rounds="$1"; shift ;;
        *) echo "compare-rma: unknown argument '$1'" >&2; usage ;;
    esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare-rma: ROUNDS must be a positive number" >&2; exit 2; }
[[ "$sizes" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "compare-rma: --sizes takes bytes, e.g. 8,65536,1048576" >&2; exit 2; }
[[ "$modes" =~ ^(put|get|acc|putbw|getbw)(,(put|get|acc|putbw|getbw))*$ ]] \
    || { echo "compare-rma: --modes takes put, get, acc, putbw, getbw, comma separated" >&2; exit 2; }
case "$sync" in flush|flush_local|lock|lock_all|fence|pscw) ;; *) echo "compare-rma: bad --sync '$sync'" >&2; exit 2 ;; esac
case "$win" in allocate|create|dynamic) ;; *) echo "compare-rma: bad --win '$win'" >&2; exit 2 ;; esac
# shellcheck source=load.sh
. "$here/load.sh"
out="${COMPARE_OUT:-$here/ompi/build/compare-rma}"
rm -rf "$out"
mkdir -p "$out"

have_ompi=1
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    have_ompi=0
    echo "# Open MPI not installed (apt-get install -y openmpi-bin libopenmpi-dev): Tutti columns only"
fi

common=(--sizes "$sizes" --sync "$sync" --win "$win" "${counts[@]}")
transport=()
btl=vader
if [ "$net" = 1 ]; then
    transport=(--transport net)
    btl=tcp
fi
# name | command; the figure is column 2 of the row whose size is in column 1
configs=()
for m in ${modes//,/ }; do
    configs+=("tutti-$m|$tutti bench $m -n 2 --no-progress ${transport[*]} ${common[*]}")
    [ "$have_ompi" = 1 ] && configs+=("ompi-$m|env OMPI_BTL=$btl $here/ompi/run.sh $m ${common[*]}")
done

$tutti --version >/dev/null   # build once, outside the timed runs
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
    "sync $sync, window $win, $([ "$net" = 1 ] && echo network || echo shared memory)"
start_load "$load"
for r in $(seq 1 "$rounds"); do
    for c in "${configs[@]}"; do
        name="${c%%|*}"
        cmd="${c#*|}"
        $cmd > "$out/$name.$r" 2>&1 || echo "# exit $?" >> "$out/$name.$r"
    done
    echo "# round $r of $rounds done"
done
stop_load

median_of() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
figures() {  # the figures of config $1 at size $2 over the rounds
    cat "$out/$1".* | awk -v s="$2" '$1 == s && $1 !~ /^#/ { print $2 }'
}

{
printf '%-14s %10s %12s  %s\n' "config" "size" "median" "runs"
for c in "${configs[@]}"; do
    name="${c%%|*}"
    for size in ${sizes//,/ }; do
        vals=$(figures "$name" "$size")
        if [ -z "$vals" ]; then
            why=$(grep -h -m1 -iE "error|refused|exception|not supported" "$out/$name".* 2>/dev/null | head -n 1 || true)
            printf '%-14s %10s %12s  %s\n' "$name" "$size" "-" "no rows: ${why:-see $out/$name.*}"
            continue
        fi
        printf '%-14s %10s %12s  %s\n' "$name" "$size" "$(echo "$vals" | median_of)" "$(echo $vals)"
    done
done
if [ "$have_ompi" = 1 ]; then
    echo
    printf '%-8s %10s %14s  %s\n' "bench" "size" "tutti/ompi" "(latency: below 1 is better; MB/s: above 1 is better)"
    for m in ${modes//,/ }; do
        for size in ${sizes//,/ }; do
            t=$(figures "tutti-$m" "$size" | median_of)
            o=$(figures "ompi-$m" "$size" | median_of)
            if [ -n "$t" ] && [ -n "$o" ]; then
                printf '%-8s %10s %14s\n' "$m" "$size" "$(awk -v t="$t" -v o="$o" 'BEGIN { printf (o > 0 ? "%.3f" : "-"), t / o }')"
            else
                printf '%-8s %10s %14s\n' "$m" "$size" "-"
            fi
        done
    done
fi
} | tee "$out/summary.txt"
