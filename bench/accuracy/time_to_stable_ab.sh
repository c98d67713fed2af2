#!/usr/bin/env bash
# time_to_stable.sh under two sets of `andweorc run` options, interleaved
# workload by workload (A then B for each), so that both sides meet the same
# load. Profiles are kept in OUT/{A,B}/<workload>.json with the load before
# each run (for bench/real/bound_compare.py and verdicts.py).
#
# Usage: bench/accuracy/time_to_stable_ab.sh BUILD OUT "A OPTIONS" "B OPTIONS"
#   e.g. ... build /tmp/tts "--granularity line" "--granularity auto"
# Environment: WORKLOADS, MAX_TIME as time_to_stable.sh; ROUNDS (default 1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[ $# -eq 4 ] || { echo "usage: time_to_stable_ab.sh BUILD OUT \"A OPTIONS\" \"B OPTIONS\"" >&2; exit 2; }
build=$1 out=$2 a=$3 b=$4
for ((r = 1; r <= ${ROUNDS:-1}; r++)); do
  for w in $(WORKLOADS=${WORKLOADS:-} acc_workloads); do
    for side in A B; do
      args=$a; [ $side = B ] && args=$b
      echo "== round $r $w side $side ($args), load $(cut -d' ' -f1-3 /proc/loadavg)"
      WORKLOADS=$w KEEP_DIR="$out/$side$([ "${ROUNDS:-1}" -gt 1 ] && echo "-$r")" \
        ANDWEORC_RUN_ARGS="$args" bash "$here/time_to_stable.sh" "$build" | sed -n 2p
    done
  done
done
