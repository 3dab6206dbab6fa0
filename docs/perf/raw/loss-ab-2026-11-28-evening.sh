#!/usr/bin/env bash
# by turns: builds in checkouts of their own under /tmp/lv (main: /work/main), two rails, 5 % loss.
# Run on 2026-11-28 with a copy of bench/rails-netns.sh's fixture (loss-ab-rails); the script now
# takes TUTTI_ROOT and RAILS for the same runs.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq ${1:-3}); do
  for v in ${VARIANTS:-ref main}; do
    root=/tmp/lv/$v; extra=""
    case $v in main) root=/work/main ;; mainp) root=/work/main; extra="TUTTI_IDLE_PARK_LONG_US=200" ;; mains) root=/work/main; extra="TUTTI_IDLE_SPIN_US=1000000" ;; esac
    r=$(env $extra TUTTI_ROOT=$root RAILS=r0,r1 TUTTI_NET_DROP=0.05 bash /work/main/bench/rails-netns.sh 1 2>&1 | tail -1 | awk '{print $(NF-1)}')
    echo "round $i $v lossy $r"
  done
done
echo "# end $(date -u '+%H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
