#!/bin/bash
# host mode before (main) and after (sim-rdv: rule 9 code, off by default), by turns
out=/tmp/sim-ab.txt; : > $out
for round in 1 2 3; do
  for tree in /work/main /work/wt/sim-rdv; do
    for c in "--coll bcast --algorithm binomial" "--coll allreduce"; do
      r=$(cd $tree && JDK_JAVA_OPTIONS=-Xmx4g ./tutti sim run $c --nodes 2^20 --sizes 8 --json --no-progress 2>/dev/null | tr -d '\n' | grep -o '"\(wall_s\|completion_ns\|time_ns\)": *[0-9.]*' | tr '\n' ' ')
      echo "round $round $tree [$c]: $r" >> $out
    done
  done
done
