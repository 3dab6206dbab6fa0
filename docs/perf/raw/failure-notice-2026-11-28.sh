#!/usr/bin/env bash
# Failure-notice time per transport (docs/perf/reliability.md): rank 1 of 2 halts while rank 0
# waits to receive from it, and rank 0 prints how long it took to get PeerFailed (PeerDeath of
# the system tests). Each transport twice: under tutti run, whose launcher sees the process end
# and tells the survivors through its rendezvous, and alone (the two ranks meet in a shared job
# directory, no launcher), where the transport finds the death itself: by the pid over shared
# memory, by silence over UDP, by the connection's end over TCP.
# Usage: docs/perf/raw/failure-notice-2026-11-28.sh [ROUNDS]; needs the build and its test classes.
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
java=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
cp="$root/tutti-cli/target/tutti/lib/*:$root/tutti-system-tests/target/test-classes"
rounds=${1:-3}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
    for t in shm udp tcp; do
        case $t in
            shm) env=(TUTTI_TRANSPORT=auto) ;;
            udp) env=(TUTTI_TRANSPORT=net TUTTI_NET=udp) ;;
            tcp) env=(TUTTI_TRANSPORT=net TUTTI_NET=tcp) ;;
        esac
        line=$(env "${env[@]}" "$root/tutti" run -n 2 --on-failure continue --timeout 60s \
            --cp "$root/tutti-system-tests/target/test-classes" io.tutti.systest.PeerDeath 2>/dev/null \
            | grep -o 'caught after [0-9]* ms')
        echo "round $i $t tutti-run: ${line:-no notice}"
        job=notice$$x$i$t
        dir=/dev/shm/tutti-$job
        mkdir -m 700 "$dir"
        for r in 0 1; do
            env "${env[@]}" TUTTI_JOB_ID=$job TUTTI_RANK=$r TUTTI_SIZE=2 TUTTI_JOB_DIR="$dir" \
                "$java" --enable-native-access=ALL-UNNAMED -cp "$cp" io.tutti.systest.PeerDeath \
                > "$dir.out$r" 2>&1 &
        done
        wait
        line=$(grep -o 'caught after [0-9]* ms' "$dir.out0")
        echo "round $i $t alone: ${line:-no notice: $(head -c 300 "$dir.out0")}"
        rm -rf "$dir" "$dir.out0" "$dir.out1"
    done
done
