#!/usr/bin/env bash
# A/B profile runs of one real program under two sets of `andweorc run`
# options, interleaved (A1 B1 A2 B2 ...), then validate.sh's summary of
# each side: significant regions, time to the first one, the top 3 of its
# two runs and whether they agree (as regions and as functions).
#
#   bash bench/real/ab_runs.sh PROGRAM "A OPTIONS" "B OPTIONS"
#   e.g. bash bench/real/ab_runs.sh zstd "--granularity line" "--granularity auto"
# Environment: PROFILE_SECONDS (default 60), ROUNDS (default 2), ANDWEORC,
# ANDWEORC_REAL_DIR as validate.sh. Profiles: $ANDWEORC_REAL_DIR/results/
# <date>-ab/PROGRAM/{A,B}/runN.json. Run it without nice, on a machine as
# quiet as you can get: the load is printed next to every run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
source "$here/summarize.sh"
[ $# -eq 3 ] || { echo "usage: ab_runs.sh PROGRAM \"A OPTIONS\" \"B OPTIONS\"" >&2; exit 2; }
prog=$1 a_args=$2 b_args=$3
case "$prog" in zstd | leveldb | memcached) ;; *) echo "unknown program: $prog" >&2; exit 2 ;; esac
PROFILE_SECONDS=${PROFILE_SECONDS:-60}
ROUNDS=${ROUNDS:-2}
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
dir="$REAL_DIR/results/$(date -u +%Y%m%d-%H%M%S)-ab/$prog"
mkdir -p "$dir/A" "$dir/B"
echo "== $prog A: $a_args | B: $b_args ($(date -u +%H:%M:%S) UTC, $(load))"
"setup_$prog" >"$dir/setup.log" 2>&1 || { echo "setup failed, see $dir/setup.log"; exit 1; }
for ((r = 1; r <= ROUNDS; r++)); do
  for side in A B; do
    args=$a_args; [ $side = B ] && args=$b_args
    read -r -a RUN_ARGS <<<"$args"
    l0=$(load)
    "long_$prog" "$dir/$side/run$r.json" "$PROFILE_SECONDS"
    echo "-- $side run $r: ${PROFILE_SECONDS}s; before: $l0; after: $(load)"
  done
done
for side in A B; do
  echo "== side $side: $([ $side = A ] && echo "$a_args" || echo "$b_args")"
  for ((r = 1; r <= ROUNDS; r++)); do summarize_run "$dir/$side" "$r"; done
  compare_tops "$dir/$side"
done
echo "   (profiles: $dir)"
