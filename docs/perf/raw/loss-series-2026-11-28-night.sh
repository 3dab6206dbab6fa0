#!/usr/bin/env bash
# by turns: 8ec296c0 (/tmp/lv/ref) and main under 5 % loss, and main loss-free; two rails.
export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq ${1:-6}); do
  for v in ref main clean; do
    root=/tmp/lv/ref; drop=0.05
    case $v in main) root=/work/main ;; clean) root=/work/main; drop=0 ;; esac
    if [ "$drop" = 0 ]; then
      r=$(env TUTTI_ROOT=$root RAILS=r0,r1 bash /work/main/bench/rails-netns.sh 1 2>&1 | tail -1 | awk '{print $(NF-1)}')
    else
      r=$(env TUTTI_ROOT=$root RAILS=r0,r1 TUTTI_NET_DROP=$drop bash /work/main/bench/rails-netns.sh 1 2>&1 | tail -1 | awk '{print $(NF-1)}')
    fi
    echo "round $i $v $r $(cut -d' ' -f1 /proc/loadavg)"
  done
done
echo "# end $(date -u '+%H:%M UTC') load $(cut -d' ' -f1-3 /proc/loadavg)"
