#!/usr/bin/env bash
# Tutti against Open MPI (C, --mca btl self,vader) on this machine, in alternating runs:
# each round runs every configuration once, so slow phases of the machine hit both alike.
# Prints every run's figure and, per configuration, the median and range over the rounds.
#
# Usage: bench/compare-p2p.sh [ROUNDS] [--load N] [--sizes LIST] [--mr]
#   ROUNDS       rounds (default 5; raw output in bench/ompi/build/compare/)
#   --load N     N busy processes run beside every configuration (default 0), so a comparison can
#                be made on a loaded machine too
#   --sizes LIST message sizes in bytes, comma separated (default 8,1048576)
#   --mr         message rate too (osu_mbw_mr: tutti bench mr, pingpong mr; the figure is MB/s)
#   --plot FILE  also plot the bandwidth curves (MB/s against size) to FILE, .png or .svg
# Skips the Open MPI columns (and says so) when mpicc/mpirun are not installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds=5
load=0
sizes="8,1048576"
usage() { sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
plot=""
mr=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --load) [[ $# -ge 2 ]] || usage; load="$2"; shift 2 ;;
        --sizes) [[ $# -ge 2 ]] || usage; sizes="$2"; shift 2 ;;
        --mr) mr=1; shift ;;
        --plot) [[ $# -ge 2 ]] || usage; plot="$2"; shift 2 ;;
        -h|--help) usage ;;
        [1-9]*) rounds="$1"; shift ;;
        *) echo "compare-p2p: unknown argument '$1'" >&2; usage ;;
    esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare-p2p: ROUNDS must be a positive number" >&2; exit 2; }
[[ "$sizes" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "compare-p2p: --sizes takes bytes, e.g. 8,65536,1048576" >&2; exit 2; }
# shellcheck source=load.sh
. "$here/load.sh"
out="$here/ompi/build/compare"
rm -rf "$out"
mkdir -p "$out"

have_ompi=1
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    have_ompi=0
    echo "# Open MPI not installed (apt-get install -y openmpi-bin libopenmpi-dev): Tutti columns only"
fi

# name | command; the figure is column 2 of the row whose size is in column 1
configs=(
    "tutti-seg-lat|$root/tutti bench latency -n 2 --buffer segment --sizes $sizes"
    "tutti-arr-lat|$root/tutti bench latency -n 2 --buffer array --sizes $sizes"
    "tutti-seg-bw|$root/tutti bench bw -n 2 --buffer segment --sizes $sizes"
    "tutti-arr-bw|$root/tutti bench bw -n 2 --buffer array --sizes $sizes"
)
if [ "$mr" = 1 ]; then
    configs+=(
        "tutti-seg-mr|$root/tutti bench mr -n 2 --buffer segment --sizes $sizes"
        "tutti-arr-mr|$root/tutti bench mr -n 2 --buffer array --sizes $sizes"
    )
    [ "$have_ompi" = 1 ] && configs+=("ompi-mr|$here/ompi/run.sh mr --sizes $sizes")
fi
if [ "$have_ompi" = 1 ]; then
    configs+=(
        "ompi-lat|$here/ompi/run.sh latency --sizes $sizes"
        "ompi-bw|$here/ompi/run.sh bw --sizes $sizes"
        "ompi-none-lat|env OMPI_SINGLE_COPY=none $here/ompi/run.sh latency --sizes $sizes"
        "ompi-none-bw|env OMPI_SINGLE_COPY=none $here/ompi/run.sh bw --sizes $sizes"
    )
fi

"$root/tutti" --version >/dev/null   # build once, outside the timed runs
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
start_load "$load"
for r in $(seq 1 "$rounds"); do
    for c in "${configs[@]}"; do
        name="${c%%|*}"
        cmd="${c#*|}"
        $cmd > "$out/$name.$r" 2>&1
    done
    echo "# round $r of $rounds done"
done
stop_load

summary() {
printf '%-16s %10s %12s  %s\n' "config" "size" "median" "runs"
for c in "${configs[@]}"; do
    name="${c%%|*}"
    for size in ${sizes//,/ }; do
        vals=$(cat "$out/$name".* | awk -v s="$size" '$1 == s && $1 !~ /^#/ { print $2 }')
        [ -n "$vals" ] || continue
        median=$(echo "$vals" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
        printf '%-16s %10s %12s  %s\n' "$name" "$size" "$median" "$(echo $vals)"
    done
done
}
summary | tee "$out/summary.txt"
if [ -n "$plot" ]; then
    # the plot is drawn by tutti-bench's ComparePlot, on a JDK 25 as ./tutti finds one
    jdk=""
    for j in "${JAVA_HOME:-/nonexistent}/bin/java" /usr/lib/jvm/*/bin/java; do
        if [ -x "$j" ] && "$j" -version 2>&1 | grep -q 'version "\(2[5-9]\|[3-9][0-9]\)'; then jdk="$j"; break; fi
    done
    [ -n "$jdk" ] || { echo "compare-p2p: no JDK 25 for the plot (set JAVA_HOME)" >&2; exit 1; }
    "$jdk" -cp "$root/tutti-cli/target/tutti/lib/*" io.tutti.bench.ComparePlot "$out/summary.txt" "$plot" \
        "Point-to-point bandwidth over shared memory, $(date -u +%F), $(nproc) cores" && echo "# plot: $plot"
fi
