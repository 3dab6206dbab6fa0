#!/bin/bash
# Start-up A/B on the cluster fixture: the build in /tmp/oldtree (git worktree add /tmp/oldtree <sha>, built)
# and this tree by turns, LaunchBenchmark 6 --threads-only each time; args: ALTERNATIONS SIZES...
R=$1; shift
M=~/.m2/repository
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
for i in $(seq 1 $R); do
  for t in /tmp/oldtree /work/main; do
    cd $t/tutti-system-tests
    CP="target/test-classes:../tutti-cli/target/tutti/lib/*:$M/org/opentest4j/opentest4j/1.3.0/opentest4j-1.3.0.jar:$M/org/apiguardian/apiguardian-api/1.1.2/apiguardian-api-1.1.2.jar:$M/org/junit/jupiter/junit-jupiter-api/5.13.4/junit-jupiter-api-5.13.4.jar"
    echo "## $t $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    TUTTI_NET_TIMEOUT_MS=15000 timeout 900 $J --enable-native-access=ALL-UNNAMED -cp "$CP" io.tutti.systest.LaunchBenchmark 6 --threads-only "$@" 2>&1 | grep "ranks:"
  done
done
