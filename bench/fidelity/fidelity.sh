#!/usr/bin/env bash
# Timing fidelity: does a program that sleeps, waits on a condition variable
# with a timeout, or polls with a timeout keep its own timing under the
# profiler? Each shape (bench/overhead/shapes.cc: ~20 us of work, then
# usleep(50) / cv.wait_for(50 us) / poll(1 ms)) runs unprofiled and under
# `andweorc run --fixed-speedup 0`, interleaved, at 1, 8 and 64 threads.
# The same work without waits (shape cpu) gives the sampling cost; the
# fidelity error of a waiting shape is its ratio divided by that of cpu at
# the same thread count: 1.000 = the profiler changed nothing but the
# sampling cost. Target: within 0.98..1.02.
#
# With METRIC=wait, compares instead the median time one wait really took
# (native / profiled: > 1 = the program's waits got shorter under the
# profiler, as with the old 1 ns timer slack); no cpu baseline is needed.
# Far steadier than throughput on a loaded machine.
#
# Usage: bench/fidelity/fidelity.sh [build-dir] [rounds] [seconds]
#        (default: build 5 2); THREADS="1 8 64", MODES="sleep condvar poll"
#        Other variables go to bench/overhead/overhead.sh (TOOL, METRIC,
#        BASE_RUNTIME for before/after columns).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build}; rounds=${2:-5}; secs=${3:-2}
threads=${THREADS:-"1 8 64"}; modes=${MODES:-"sleep condvar poll"}
res=$(mktemp); trap 'rm -f "$res"' EXIT
shapes=""
base=cpu; [[ ${METRIC:-} == wait ]] && base=""
for t in $threads; do for m in $base $modes; do shapes+="$m:$t "; done; done
SHAPES=$shapes CONFIGS=exp0 RESULTS=$res "$here/../overhead/overhead.sh" "$build" "$rounds" "$secs"
echo
printf '%-8s %7s %-10s %12s %10s %10s\n' shape threads config "ratio±MAD" "cpu ratio" "fidelity"
worst=1
while read -r shape t config ratio mad; do
  [[ $shape == cpu ]] && continue
  cpu=1
  [[ -n $base ]] && cpu=$(awk -v t="$t" -v c="$config" '$1 == "cpu" && $2 == t && $3 == c {print $4}' "$res")
  f=$(awk -v r="$ratio" -v c="$cpu" 'BEGIN {printf "%.3f", r / c}')
  printf '%-8s %7s %-10s %7.3f±%-3s%% %10.3f %10s\n' "$shape" "$t" "$config" "$ratio" "$mad" "$cpu" "$f"
  [[ $config == *.base ]] && continue
  worst=$(awk -v w="$worst" -v f="$f" 'BEGIN {d = f - 1; d = d < 0 ? -d : d; e = w - 1; e = e < 0 ? -e : e; print ((d > e) ? f : w)}')
done <"$res"
awk -v w="$worst" 'BEGIN {printf "worst fidelity %.3f (target 0.98..1.02): %s\n", w, (w >= 0.98 && w <= 1.02) ? "PASS" : "FAIL"}'
