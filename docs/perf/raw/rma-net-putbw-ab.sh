#!/bin/bash
# A/B of one-sided bandwidth over one UDP rail on loopback: this build, the build before, Open MPI TCP BTL
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."   # the top of the source tree
# OLD: a second checkout of the build before, built (./tutti --version)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 ${1:-6}); do
  echo "new r$i $(./tutti bench putbw -n 2 --transport net --sizes 64k,1m --no-progress 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  echo "old r$i $("${OLD:-/tmp/oldtree}"/tutti bench putbw -n 2 --transport net --sizes 64k,1m --no-progress 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  echo "ompi r$i $(OMPI_BTL=tcp bench/ompi/run.sh putbw --sizes 65536,1048576 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
done
echo "# end $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
