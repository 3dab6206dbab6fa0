#!/bin/bash
# A/B under one busy process (same session): Tutti's new default, its old wait (TUTTI_IDLE_SPIN_US=0), --bind-to core, Open MPI
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."   # the top of the source tree
rounds=${1:-4}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
nohup sh -c "while :; do :; done" >/dev/null 2>&1 < /dev/null & hog=$!
trap "kill $hog" EXIT
t() { ./tutti bench "$@" 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}'; }
for i in $(seq 1 $rounds); do
  for cfg in "new|X=1|" "old|TUTTI_IDLE_SPIN_US=0|" "bind|X=1|--bind-to core"; do
    IFS='|' read -r name envs opt <<< "$cfg"
    echo "$name r$i bw $(env $envs ./tutti bench bw -n 2 --sizes 8,64k,1m $opt 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
    echo "$name r$i ar2 $(env $envs ./tutti bench allreduce -n 2 --sizes 8,1m $opt 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
    [ "$name" = bind ] || echo "$name r$i ar4 $(env $envs ./tutti bench allreduce -n 4 --sizes 8 $opt 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}') bar4 $(env $envs ./tutti bench barrier -n 4 $opt 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  done
  echo "ompi r$i bw $(bench/ompi/run.sh bw --sizes 8,65536,1048576 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  echo "ompi-none r$i bw $(OMPI_SINGLE_COPY=none bench/ompi/run.sh bw --sizes 8,65536,1048576 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  echo "ompi r$i ar2 $(bench/ompi/coll.sh allreduce -np 2 --sizes 8,1048576 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
  echo "ompi r$i ar4 $(bench/ompi/coll.sh allreduce -np 4 --sizes 8 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}') bar4 $(bench/ompi/coll.sh barrier -np 4 2>&1 | grep -v '^#' | awk '{printf "%s:%s ", $1, $2}')"
done
echo "# end $(date -u '+%H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
