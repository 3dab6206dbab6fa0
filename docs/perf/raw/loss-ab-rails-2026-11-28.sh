#!/usr/bin/env bash
# bench/rails-netns.sh's fixture, one bandwidth run per call with $TUTTI_ROOT's build and $RAILS
set -euo pipefail
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
        ip -n "$host" link set r$k up
        ip -n "$sw" link set h${h}r$k master br$k; ip -n "$sw" link set h${h}r$k up
        ip netns exec "$host" tc qdisc add dev r$k root tbf rate 1gbit burst 256kb latency 50ms
    done
    h=$((h + 1))
done
cd "$TUTTI_ROOT"
${PRE:-} ./tutti bench bw -n 2 --sizes 1m --hosts "$h0,$h1" --ppn 1 --exec-prefix 'ip netns exec {host}' --rails "$RAILS" 2>&1 | tail -1
