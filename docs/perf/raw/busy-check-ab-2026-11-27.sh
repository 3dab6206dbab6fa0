#!/bin/bash
# A/B of the wait loop's busy check: 8786644 (before) against the working tree (after), by turns
out=/tmp/ab-busy.txt
: > $out
for round in 1 2 3 4; do
  for tree in /tmp/oldtree /work/main; do
    for cmd in "latency -n 2 --sizes 8 --iters 300000" "allreduce -n 4 --sizes 8 --iters 20000" "latency -n 2 --transport net --sizes 8 --iters 50000"; do
      r=$(cd $tree && ./tutti bench $cmd --json 2>&1 | tr -d '\n' | grep -o '"[a-z_]*": *[0-9.]*' | tr '\n' ' ')
      echo "round $round $(basename $tree) [$cmd] load $(cut -d' ' -f1 /proc/loadavg): $r" >> $out
    done
  done
done
