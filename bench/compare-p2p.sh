#!/usr/bin/env bash
# Tutti against Open MPI (C, --mca btl self,vader) on this machine, in alternating runs:
# each round runs every configuration once, so slow phases of the machine hit both alike.
# Prints every run's figure and, per configuration, the median and range over the rounds.
#
# Usage: bench/compare-p2p.sh [ROUNDS]        (default 5; raw output in bench/ompi/build/compare/)
# Skips the Open MPI columns (and says so) when mpicc/mpirun are not installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
rounds="${1:-5}"
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
    "tutti-seg-lat|$root/tutti bench latency -n 2 --buffer segment --sizes 8,1048576"
    "tutti-arr-lat|$root/tutti bench latency -n 2 --buffer array --sizes 8,1048576"
    "tutti-seg-bw|$root/tutti bench bw -n 2 --buffer segment --sizes 8,1048576"
    "tutti-arr-bw|$root/tutti bench bw -n 2 --buffer array --sizes 8,1048576"
)
if [ "$have_ompi" = 1 ]; then
    configs+=(
        "ompi-lat|$here/ompi/run.sh latency --sizes 8,1048576"
        "ompi-bw|$here/ompi/run.sh bw --sizes 8,1048576"
        "ompi-none-lat|env OMPI_SINGLE_COPY=none $here/ompi/run.sh latency --sizes 8,1048576"
        "ompi-none-bw|env OMPI_SINGLE_COPY=none $here/ompi/run.sh bw --sizes 8,1048576"
    )
fi

"$root/tutti" --version >/dev/null   # build once, outside the timed runs
for r in $(seq 1 "$rounds"); do
    for c in "${configs[@]}"; do
        name="${c%%|*}"
        cmd="${c#*|}"
        $cmd > "$out/$name.$r" 2>&1
    done
    echo "# round $r of $rounds done"
done

printf '%-16s %10s %12s  %s\n' "config" "size" "median" "runs"
for c in "${configs[@]}"; do
    name="${c%%|*}"
    for size in 8 1048576; do
        vals=$(cat "$out/$name".* | awk -v s="$size" '$1 == s && $1 !~ /^#/ { print $2 }')
        [ -n "$vals" ] || continue
        median=$(echo "$vals" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
        printf '%-16s %10s %12s  %s\n' "$name" "$size" "$median" "$(echo $vals)"
    done
done
