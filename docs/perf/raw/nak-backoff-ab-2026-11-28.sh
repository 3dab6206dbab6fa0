#!/usr/bin/env bash
# by turns: main, v1 (NAK back-off only while the peer is silent), v2 (no busy-wait check); two rails, 5 % loss
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq ${1:-3}); do
  for v in ${VARIANTS:-main v1 v2}; do
    root=/tmp/lv/$v; [ $v = main ] && root=/work/main
    r=$(TUTTI_ROOT=$root RAILS=r0,r1 TUTTI_NET_DROP=0.05 bash /tmp/lv/rails.sh 1 2>&1 | tail -1 | awk '{print $(NF-1)}')
    echo "round $i $v lossy $r"
  done
done
echo "# end $(date -u '+%H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
