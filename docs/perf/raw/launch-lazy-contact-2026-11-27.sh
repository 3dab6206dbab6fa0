#!/usr/bin/env bash
# start-up to the first barrier on the 4-host test cluster: the build before peers were called on when
# needed (/tmp/oldtree, cffe512) and after (/work/main), by turns
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
JUNIT=$(ls ~/.m2/repository/org/junit/jupiter/junit-jupiter-api/5.13.4/*.jar):$(ls ~/.m2/repository/org/opentest4j/opentest4j/1.3.0/*.jar):$(ls ~/.m2/repository/org/apiguardian/apiguardian-api/1.1.2/*.jar)
out=/work/main/docs/perf/raw/launch-lazy-contact-2026-11-27.txt
run() { # tree label args...
  local tree=$1 label=$2; shift 2
  echo "## $label: LaunchBenchmark $* ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
  (cd $tree/tutti-system-tests && $J -cp "target/test-classes:../tutti-cli/target/tutti/lib/*:$JUNIT" io.tutti.systest.LaunchBenchmark "$@")
}
{
  run /tmp/oldtree "warm-up, not counted" 1 --threads-only 8
  run /work/main "warm-up, not counted" 1 --threads-only 8
  for round in 1 2; do
    run /tmp/oldtree "before (cffe512)" 1 --threads 8 32
    run /work/main "after" 1 --threads 8 32
    run /tmp/oldtree "before (cffe512)" 1 --threads-only 64
    run /work/main "after" 1 --threads-only 64
  done
  run /work/main "after" 1 64
  echo "== end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee $out
