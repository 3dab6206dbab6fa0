#!/usr/bin/env bash
# The kernel's floor for the rails on loopback, beside Tutti's rails and Open MPI's TCP BTL, in
# alternating rounds: 8 B latency (half a round trip, us) and 1 MiB bandwidth (MB/s).
#
# Usage: bench/floor/run.sh [ROUNDS]   (default 3; needs cc, and mpicc/mpirun for the Open MPI lines)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."   # the top of the source tree
rounds=${1:-3}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: bench/floor/run.sh [ROUNDS]" >&2; exit 2; }
out=bench/floor/build
mkdir -p "$out"
cc -O2 -Wall -o "$out/udp" bench/floor/udp.c
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
field() { grep -v '^#' | awk -v s="$1" '$1 == s { print $2 }'; }
for i in $(seq 1 "$rounds"); do
    echo "round $i" \
        "udp-lat $("$out/udp" latency 8 200000 | field 8)" \
        "udp-bw $("$out/udp" bw 65000 8192 | field 65000)" \
        "tutti-lat $(./tutti bench latency -n 2 --transport net --sizes 8 --no-progress 2>&1 | field 8)" \
        "tutti-bw $(./tutti bench bw -n 2 --transport net --sizes 1m --no-progress 2>&1 | field 1048576)" \
        "ompi-lat $(OMPI_BTL=tcp bench/ompi/run.sh latency --sizes 8 2>&1 | field 8)" \
        "ompi-bw $(OMPI_BTL=tcp bench/ompi/run.sh bw --sizes 1048576 2>&1 | field 1048576)"
done
