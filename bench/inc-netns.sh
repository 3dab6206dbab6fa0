#!/usr/bin/env bash
# Allreduce latency of the in-network algorithm (inc) against recursive doubling, over HOSTS host
# namespaces (one rank each) under ToR switch namespaces of HOSTS/2 hosts each and one spine
# namespace, every switch a `tutti switch` process; links are routed veth pairs.
# Needs root and iproute2; only the namespaces' own addresses (10.110+.0.x, 10.120+.0.x and
# 10.200.0.1, the address of every ToR as its hosts see it) are used.
# Usage: bench/inc-netns.sh HOSTS [ROUNDS] [SIZES]   (raw output on stdout, switch counters in
# $OUT-switch-*.txt, OUT default /tmp/inc-netns)
set -euo pipefail
n="${1:?number of hosts}"; rounds="${2:-1}"; sizes="${3:-8,64,256,1k,4k}"; out="${OUT:-/tmp/inc-netns}"
per=$(( (n + 1) / 2 )); tors=$(( (n + per - 1) / per ))
id=$RANDOM; p="ti$id"
names=()
cleanup() {
    for ns in "${names[@]}"; do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill "$pid" 2>/dev/null || true; done
    done
    sleep 2
    for ns in "${names[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
}
trap cleanup EXIT
spine=${p}sp; names+=("$spine")
ip netns add "$spine"; ip -n "$spine" link set lo up; ip netns exec "$spine" sysctl -qw net.ipv4.ip_forward=1
for t in $(seq 0 $((tors - 1))); do
    tor=${p}to$t; names+=("$tor")
    ip netns add "$tor"; ip -n "$tor" link set lo up; ip netns exec "$tor" sysctl -qw net.ipv4.ip_forward=1
    ip -n "$tor" link add br0 type bridge
    ip -n "$tor" addr add 10.$((110 + t)).0.254/24 dev br0; ip -n "$tor" addr add 10.200.0.1/32 dev br0
    ip -n "$tor" link set br0 up
    ip -n "$tor" link add upl type veth peer name d$t netns "$spine"
    ip -n "$tor" addr add 10.$((120 + t)).0.1/24 dev upl; ip -n "$tor" link set upl up
    ip -n "$spine" addr add 10.$((120 + t)).0.2/24 dev d$t; ip -n "$spine" link set d$t up
    ip -n "$tor" route add 10.0.0.0/8 via 10.$((120 + t)).0.2
    ip -n "$spine" route add 10.$((110 + t)).0.0/24 via 10.$((120 + t)).0.1
done
hosts=""
for h in $(seq 0 $((n - 1))); do
    t=$((h / per)); host=${p}h$h; names+=("$host"); hosts="$hosts${hosts:+,}$host"
    ip netns add "$host"; ip -n "$host" link set lo up
    ip -n "$host" link add r0 type veth peer name h$h netns ${p}to$t
    ip -n "$host" addr add 10.$((110 + t)).0.$((h % per + 1))/24 dev r0; ip -n "$host" link set r0 up
    ip -n ${p}to$t link set h$h master br0; ip -n ${p}to$t link set h$h up
    ip -n "$host" route add 10.200.0.1/32 dev r0; ip -n "$host" route add 10.0.0.0/8 via 10.$((110 + t)).0.254
done
cd "$(dirname "$0")/.."
./tutti --version > /dev/null   # builds the assembly if needed
java="$(ls -d /usr/lib/jvm/*25*/bin/java 2>/dev/null | head -n 1)"; java="${JAVA:-${java:-java}}"
lib="tutti-cli/target/tutti/lib/*"
ip netns exec "$spine" "$java" -Xmx64m -XX:+UseSerialGC -cp "$lib" io.tutti.cli.Main switch --role spine \
    --ports 0.0.0.0:7700 --id 100 > "$out-switch-spine.txt" 2>&1 &
for t in $(seq 0 $((tors - 1))); do
    ip netns exec ${p}to$t "$java" -Xmx64m -XX:+UseSerialGC -cp "$lib" io.tutti.cli.Main switch --role tor \
        --ports 0.0.0.0:7700 --id $((t + 1)) --uplink 10.$((120 + t)).0.2:7700 > "$out-switch-tor$t.txt" 2>&1 &
done
sleep 3
for round in $(seq 1 "$rounds"); do
    for alg in inc recursive-doubling; do
        echo "== round $round algorithm $alg"
        ./tutti bench allreduce -n "$n" --ppn 1 --hosts "$hosts" --rails r0 --algorithm "$alg" --sizes "$sizes" \
            --iters 500 --warmup 50 --exec-prefix "ip netns exec {host} env TUTTI_INC_SWITCH=10.200.0.1:7700 \
TUTTI_TOPOLOGY_NODE_SIZE=1 TUTTI_NET_TIMEOUT_MS=10000" || echo "(run failed)"
    done
done
