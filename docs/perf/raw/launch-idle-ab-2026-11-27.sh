#!/bin/bash
# Start-up A/B by turns: the build after (/work/main) and before (a checkout of c9018e8 in /tmp/oldtree),
# two turns each. Usage: launch-idle-ab-2026-11-27.sh ROUNDS MODE SIZES..., where ROUNDS and MODE
# go to LaunchBenchmark: "1 --threads 8 32 64" (a JVM per rank, --threads, mpirun) or
# "2 --threads-only 32 64" (--threads and mpirun alone).
J=$(ls -d /usr/lib/jvm/temurin-25*/bin/java)
EXTRA=/root/.m2/repository/org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar:/root/.m2/repository/org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2.jar:/root/.m2/repository/org/junit/jupiter/junit-jupiter-api/5.13.4/junit-jupiter-api-5.13.4.jar
for round in 1 2; do
  for tree in /work/main /tmp/oldtree; do
    echo "=== round $round tree $tree $(date -u +%H:%M:%S) $(cat /proc/loadavg)"
    (cd $tree/tutti-system-tests && TUTTI_NET_TIMEOUT_MS=15000 timeout 900 $J --enable-native-access=ALL-UNNAMED \
      -cp "target/test-classes:../tutti-cli/target/tutti/lib/*:$EXTRA" io.tutti.systest.LaunchBenchmark "$@" 2>&1 | grep -v "^# ")
  done
done
