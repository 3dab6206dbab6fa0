#!/bin/bash
# A/B of 8 B and 1 MiB put bandwidth and 8 B put latency over one UDP rail on loopback: this build, the build before, Open MPI TCP BTL
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."   # the top of the source tree
# OLD: a second checkout of the build before, built (./tutti --version)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 ${1:-4}); do
  for v in new old; do B=./tutti; [ $v = old ] && B="${OLD:-/tmp/oldtree}"/tutti
  echo "$v r$i putbw $($B bench putbw -n 2 --transport net --sizes 8,1m --no-progress 2>&1 | grep -v '^#' | awk '{printf "%s:%s(%sB) ", $1, $2, $3}') put $($B bench put -n 2 --transport net --sizes 8 --no-progress 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  done
  echo "ompi r$i putbw $(OMPI_BTL=tcp bench/ompi/run.sh putbw --sizes 8,1048576 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}') put $(OMPI_BTL=tcp bench/ompi/run.sh put --sizes 8 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
done
echo "# end $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
