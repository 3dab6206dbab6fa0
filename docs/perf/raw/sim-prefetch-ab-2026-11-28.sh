#!/usr/bin/env bash
# by turns: the build before (/tmp/lv/base) and main, tutti sim run at 2^20 (and 2^24 barrier with ROUNDS24)
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
runs=(
 "bcast-binomial|--coll bcast --algorithm binomial --nodes 2^20 --sizes 8"
 "bcast-default|--coll bcast --nodes 2^20 --sizes 8"
 "barrier-default|--coll barrier --nodes 2^20"
 "allreduce-default|--coll allreduce --nodes 2^20 --sizes 8"
 "barrier-dissemination|--coll barrier --algorithm dissemination --nodes 2^20"
)
for i in $(seq ${1:-2}); do
  for r in "${runs[@]}"; do
    name=${r%%|*}; args=${r#*|}
    for v in base main; do
      root=/tmp/lv/base; [ $v = main ] && root=/work/main
      out=$(cd $root && JDK_JAVA_OPTIONS=-Xmx4g /usr/bin/time -f "rss_kb %M wall %e" ./tutti sim run $args --json --no-progress 2>&1)
      w=$(echo "$out" | grep -o '"wall_s" *: *[0-9.]*' | head -1 | grep -o '[0-9.]*$')
      c=$(echo "$out" | grep -o '"completion_ns" *: *[0-9]*' | head -1 | grep -o '[0-9]*$')
      echo "round $i $name $v wall_s $w completion $c $(echo "$out" | tail -1) load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
for i in $(seq ${ROUNDS24:-0}); do
  for v in base main; do
    root=/tmp/lv/base; [ $v = main ] && root=/work/main
    out=$(cd $root && JDK_JAVA_OPTIONS=-Xmx4g /usr/bin/time -f "rss_kb %M wall %e" ./tutti sim run --coll barrier --algorithm dissemination --nodes 2^24 --json --no-progress 2>&1)
    w=$(echo "$out" | grep -o '"wall_s" *: *[0-9.]*' | head -1 | grep -o '[0-9.]*$')
    c=$(echo "$out" | grep -o '"completion_ns" *: *[0-9]*' | head -1 | grep -o '[0-9]*$')
    echo "round $i barrier-dissemination-2^24 $v wall_s $w completion $c $(echo "$out" | tail -1) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
echo "# end $(date -u '+%H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
