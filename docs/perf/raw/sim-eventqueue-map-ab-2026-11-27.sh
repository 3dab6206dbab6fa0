#!/usr/bin/env bash
# the event queue's time map interleaved (new) or in two arrays (old): the same build but tutti-sim's jar, by turns
cd /work/main
lib=tutti-cli/target/tutti/lib/tutti-sim-0.1.0-SNAPSHOT.jar
echo "== start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in 1 2 3 4 5; do
  for v in old new; do
    cp /tmp/sim-$v.jar $lib
    printf "%s bcast 2^20: " $v
    JDK_JAVA_OPTIONS=-Xmx4g ./tutti sim run --coll bcast --algorithm binomial --nodes 2^20 --sizes 8 --json --no-progress 2>&1 | grep -o '"completion_ns":[0-9]*\|"wall_s":[0-9.]*' | tr '\n' ' '; echo
  done
done
for round in 1 2; do
  for v in old new; do
    cp /tmp/sim-$v.jar $lib
    printf "%s dissemination barrier 2^24: " $v
    JDK_JAVA_OPTIONS=-Xmx4g ./tutti sim run --coll barrier --algorithm dissemination --nodes 2^24 --json --no-progress 2>&1 | grep -o '"completion_ns":[0-9]*\|"wall_s":[0-9.]*' | tr '\n' ' '; echo
  done
done
cp /tmp/sim-new.jar $lib
echo "== end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
