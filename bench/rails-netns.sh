#!/usr/bin/env bash
# 1 MiB bandwidth between two hosts made of network namespaces, over one rail and over two, each
# rail a veth pair (bridged in a third, switch namespace) limited to 1 Gbit/s with tbf.
# Needs root and iproute2; only the namespaces' own addresses (10.100.0.x, 10.101.0.x) are used.
# Usage: bench/rails-netns.sh [ROUNDS]   (environment: MTU for the veths, TBF_LATENCY for the tbf
# queue, default 50ms, TUTTI_NET=tcp for the TCP rails, TUTTI_NET_* for their settings, BENCH=putbw
# or getbw for the one-sided bandwidth of a window across the two hosts instead of bw, RAILS for the
# rail sets to run, default "r0 r0,r1", TUTTI_ROOT for the source tree whose ./tutti runs, default
# this one: another build's checkout, for runs by turns)
set -euo pipefail
rounds="${1:-2}"
id=$RANDOM; sw=tsw$id; h0=th${id}x0; h1=th${id}x1
cleanup() { ip netns del "$h0" 2>/dev/null || true; ip netns del "$h1" 2>/dev/null || true; ip netns del "$sw" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$sw"; ip -n "$sw" link set lo up
for k in 0 1; do ip -n "$sw" link add br$k type bridge; ip -n "$sw" link set br$k up; done
h=0
for host in "$h0" "$h1"; do
    ip netns add "$host"; ip -n "$host" link set lo up
    for k in 0 1; do
        ip -n "$host" link add r$k type veth peer name h${h}r$k netns "$sw"
        ip -n "$host" addr add 10.$((100 + k)).0.$((h + 1))/24 dev r$k
        ip -n "$host" link set r$k mtu "${MTU:-1500}"; ip -n "$sw" link set h${h}r$k mtu "${MTU:-1500}"
        ip -n "$host" link set r$k up
        ip -n "$sw" link set h${h}r$k master br$k; ip -n "$sw" link set h${h}r$k up
        ip netns exec "$host" tc qdisc add dev r$k root tbf rate 1gbit burst 256kb latency ${TBF_LATENCY:-50ms}
    done
    h=$((h + 1))
done
cd "${TUTTI_ROOT:-$(dirname "$0")/..}"
for round in $(seq 1 "$rounds"); do
    for rails in ${RAILS:-r0 r0,r1}; do
        echo "round $round rails $rails: $(./tutti bench "${BENCH:-bw}" -n 2 --sizes 1m --hosts "$h0,$h1" --ppn 1 \
            --exec-prefix 'ip netns exec {host}' --rails "$rails" 2>&1 | tail -1)"
    done
done
