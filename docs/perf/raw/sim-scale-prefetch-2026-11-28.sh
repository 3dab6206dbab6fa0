#!/usr/bin/env bash
# events/s and bytes per rank, P = 2^16 ... 2^24: the binomial bcast and the dissemination barrier
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
for k in 16 17 18 19 20 21 22 23 24; do
  for c in "--coll bcast --algorithm binomial" "--coll barrier --algorithm dissemination"; do
    out=$(JDK_JAVA_OPTIONS=-Xmx12g /usr/bin/time -f "rss_kb %M wall %e" ./tutti sim run $c --nodes 2^$k --sizes 8 --json --no-progress 2>&1)
    echo "2^$k $c $(echo "$out" | grep -o '"events":[0-9]*') $(echo "$out" | grep -o '"wall_s":[0-9.]*') $(echo "$out" | tail -1)"
  done
done
echo "# end $(date -u '+%H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
