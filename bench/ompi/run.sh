#!/usr/bin/env bash
# Build and run the Open MPI point-to-point baseline (pingpong.c) or one-sided baseline
# (onesided.c) on 2 ranks.
#
# Usage: bench/ompi/run.sh latency|bw|bibw|mr [--sizes a,b,c] [--iters N] [--warmup N]
#                          [--bind-to core|none|...] [-np N]   (-np: mr only, even, default 2)
#        bench/ompi/run.sh put|get|acc|putbw|getbw [--sync flush|flush_local|lock|lock_all|fence|pscw]
#                          [--win allocate|create|dynamic] [--sizes a,b,c] [--iters N] [--warmup N]
#
# Environment:
#   OMPI_BTL=vader|tcp     shared-memory (default: self,vader) or loopback TCP (self,tcp)
#   OMPI_BIND=core         same as --bind-to (default: Open MPI's own, which is core for -np 2)
#   OMPI_SINGLE_COPY=cma|none|xpmem|knem|emulated   btl_vader_single_copy_mechanism
#   MPIRUN_EXTRA="..."     extra mpirun arguments, word-split
#   MPICC_FLAGS            compiler flags (default: -O2)
#
# Exits 0 with a SKIPPED message when mpicc or mpirun is not installed
# (apt-get install -y openmpi-bin libopenmpi-dev).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$here/build"

usage() {
    echo "usage: $0 latency|bw|bibw|mr|put|get|acc|putbw|getbw [--sizes a,b,c] [--iters N] [--warmup N]" \
         "[--sync S] [--win W] [--bind-to core] [-np N]" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
case "$1" in
    latency|bw|bibw|mr) prog=pingpong ;;
    put|get|acc|putbw|getbw) prog=onesided ;;
    *) usage ;;
esac

for tool in mpicc mpirun; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIPPED: $tool not found (install with: apt-get install -y openmpi-bin libopenmpi-dev)"
        exit 0
    fi
done

# Split our own option (--bind-to) from the ones passed to the program.
bind="${OMPI_BIND:-}"
np=2
prog_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        -np) [[ $# -ge 2 ]] || usage; np="$2"; shift 2 ;;
        --bind-to) [[ $# -ge 2 ]] || usage; bind="$2"; shift 2 ;;
        --bind-to=*) bind="${1#--bind-to=}"; shift ;;
        *) prog_args+=("$1"); shift ;;
    esac
done

mkdir -p "$build"
bin="$build/$prog"
if [[ ! -x "$bin" || "$here/$prog.c" -nt "$bin" ]]; then
    # shellcheck disable=SC2086
    mpicc ${MPICC_FLAGS:--O2} -Wall -Wextra -std=c11 -o "$bin" "$here/$prog.c"
fi

case "${OMPI_BTL:-vader}" in
    vader|sm) btl="self,vader" ;;
    tcp) btl="self,tcp" ;;
    *) echo "OMPI_BTL must be vader or tcp" >&2; exit 2 ;;
esac

cmd=(mpirun --allow-run-as-root -np "$np" --mca btl "$btl")
[[ "$np" -gt "$(nproc)" ]] && cmd+=(--oversubscribe)
[[ "$btl" == "self,tcp" ]] && cmd+=(--mca btl_tcp_if_include lo)
# one-sided over TCP too: the sm component would map the window in shared memory whatever the btl
[[ "$btl" == "self,tcp" ]] && cmd+=(--mca osc pt2pt)
[[ -n "$bind" ]] && cmd+=(--bind-to "$bind")
[[ -n "${OMPI_SINGLE_COPY:-}" ]] && cmd+=(--mca btl_vader_single_copy_mechanism "$OMPI_SINGLE_COPY")
# shellcheck disable=SC2206
[[ -n "${MPIRUN_EXTRA:-}" ]] && cmd+=($MPIRUN_EXTRA)
cmd+=("$bin" "${prog_args[@]}")

echo "# command: ${cmd[*]}"
exec "${cmd[@]}"
