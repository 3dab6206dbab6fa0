#!/usr/bin/env bash
# Reproduce the numbers in docs/perf/ompi-baseline.md.
# Runs latency, bw and bibw alternately ROUNDS times (default 3) after one
# discarded warm-up round, then the TCP-loopback and single-copy comparisons,
# and prints median and range (min-max) of the runs per size.
# Raw outputs go to bench/ompi/build/results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run="$here/run.sh"
out="$here/build/results"
rounds="${ROUNDS:-3}"

if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIPPED: mpicc/mpirun not found (install with: apt-get install -y openmpi-bin libopenmpi-dev)"
    exit 0
fi
rm -rf "$out"; mkdir -p "$out"

LAT_SIZES=8,64,1024,16384,65536,1048576
BW_SIZES=8,1024,65536,1048576,4194304

steal0=$(awk '/^cpu /{print $9}' /proc/stat)
"$run" latency --sizes "$LAT_SIZES" >/dev/null   # discarded warm-up round
for r in $(seq 1 "$rounds"); do
    "$run" latency --sizes "$LAT_SIZES" > "$out/latency.$r"
    "$run" bw      --sizes "$BW_SIZES"  > "$out/bw.$r"
    "$run" bibw    --sizes "$BW_SIZES"  > "$out/bibw.$r"
done
for r in $(seq 1 "$rounds"); do
    OMPI_BTL=tcp "$run" latency --sizes 8       > "$out/tcp-latency.$r"
    OMPI_BTL=tcp "$run" bw      --sizes 1048576 > "$out/tcp-bw.$r"
    for m in cma none; do
        OMPI_SINGLE_COPY=$m "$run" latency --sizes 1048576 > "$out/sc-$m-latency.$r"
        OMPI_SINGLE_COPY=$m "$run" bw      --sizes 1048576 > "$out/sc-$m-bw.$r"
    done
done

# summary: per size, median and min-max over the runs of column 2 (the figure)
summary() {
    local name="$1"
    echo "== $name (median [min-max] of $rounds runs)"
    cat "$out/$name".* | grep -v '^#' | sort -n -k1,1 -s | awk '
        function flush(   n, i, j, t) {
            n = cnt; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
            printf "%-10s %10.2f  [%.2f-%.2f]\n", size, (n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2), v[1], v[n]
        }
        { if (NR > 1 && $1 != size) { flush(); cnt = 0 } size = $1; v[++cnt] = $2 }
        END { if (cnt) flush() }'
}
steal1=$(awk '/^cpu /{print $9}' /proc/stat)
echo "# hypervisor steal time during the runs: $((steal1 - steal0)) ticks of 1/$(getconf CLK_TCK) s (all CPUs)"
for f in latency bw bibw tcp-latency tcp-bw sc-cma-latency sc-none-latency sc-cma-bw sc-none-bw; do
    summary "$f"
done
