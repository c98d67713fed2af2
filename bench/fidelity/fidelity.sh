#!/usr/bin/env bash
# Timing fidelity (issue 18): does a program that sleeps, waits on a
# condition variable with a timeout, or polls with a timeout keep its own
# timing under the profiler, beyond the cost of sampling it?
#
# Each waiting shape (bench/overhead/shapes.cc: ~20 us of work, then
# usleep(50) / cv.wait_for(50 us) / poll(1 ms)) has a twin: the same program
# with the wait call removed (shape <mode>_twin). Per round, four runs in a
# rotating order: shape native, shape under `andweorc run --fixed-speedup 0`,
# twin native, twin profiled. The round's fidelity is
#     (profiled/native throughput of the shape) / (the same of the twin)
# so the sampling cost the twin measures on the same work cancels, and what
# is left is what the profiler does to the waits. 1.000 = nothing; target
# 0.98..1.02. Where threads do not outnumber cores, a thread that waits
# most of the time pays that cost only on its work, so the plain ratio
# over-corrects: the "busy-share corr." column divides the shape's ratio by
# the expected Ts / (Ts + Tw c) instead (T = 1 / native throughput, c = the
# twin's cost), and the verdict uses it there (throughput only). Printed: medians over the rounds, with the relative median
# absolute deviation (MAD) of each, and `uptime` before and after.
#
# With METRIC=cpu, the same with units per CPU-second of the whole process
# (user + system, the profiler's threads included) in place of throughput:
# steadier on a loaded machine, and where threads outnumber cores (8, 64)
# it is what sets throughput; blind to how long the waits last.
#
# With METRIC=wait, compares instead the median time one wait really took
# (native / profiled: > 1 = the program's waits got shorter under the
# profiler, as with the old 1 ns timer slack), through overhead.sh.
#
# Usage: bench/fidelity/fidelity.sh [build-dir] [rounds] [seconds]
#        (default: build 5 2); THREADS="1 8 64", MODES="sleep condvar poll",
#        ANDWEORC_RUN_ARGS (extra `andweorc run` options), TOOL (the CLI).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build}; rounds=${2:-5}; secs=${3:-2}
threads=${THREADS:-"1 8 64"}; modes=${MODES:-"sleep condvar poll"}

if [[ ${METRIC:-} == wait ]]; then
  shapes=""
  for t in $threads; do for m in $modes; do shapes+="$m:$t "; done; done
  SHAPES=$shapes CONFIGS=exp0 exec "$here/../overhead/overhead.sh" "$build" "$rounds" "$secs"
fi

bin="$build/bin"; tool=${TOOL:-$bin/andweorc}; shapes_bin="$bin/overhead_shapes"
[[ -x $tool && -x $shapes_bin ]] || { echo "error: build the andweorc and overhead_shapes targets first ($tool, $shapes_bin)" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

source "$here/../overhead/stats.sh"

# One run: $1 native|profiled, $2 shape, $3 threads; prints throughput.
run_one() {
  local out
  if [[ $1 == native ]]; then
    out=$("$shapes_bin" "$2" "$3" "$secs")
  else
    # shellcheck disable=SC2086
    out=$("$tool" run -q --fixed-speedup 0 -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} -- "$shapes_bin" "$2" "$3" "$secs")
  fi
  if [[ ${METRIC:-throughput} == cpu ]]; then
    awk -v c="$(field "$out" cpu_us)" 'BEGIN {printf "%.6f", 1 / c}'
  else
    field "$out" throughput
  fi
}

echo "metric: ${METRIC:-throughput}; uptime before: $(uptime)"
printf '%-8s %7s %16s %16s %16s %16s\n' mode threads "shape prof/nat" "twin prof/nat" "fidelity" "busy-share corr."
printf '%-8s %7s %16s %16s %16s %16s\n' "" "" "(median ±MAD)" "(median ±MAD)" "(median ±MAD)" "(threads<=cores)"
worst=1
for t in $threads; do
  for m in $modes; do
    runs=("native $m" "profiled $m" "native ${m}_twin" "profiled ${m}_twin")
    shape_r=(); twin_r=(); fid=(); corr=()
    for ((r = 0; r < rounds; r++)); do
      declare -A thr=()
      for ((k = 0; k < 4; k++)); do
        run=${runs[$(((k + r) % 4))]}
        # shellcheck disable=SC2086
        thr[$run]=$(run_one $run "$t")
      done
      s=$(ratio "${thr[profiled $m]}" "${thr[native $m]}")
      w=$(ratio "${thr[profiled ${m}_twin]}" "${thr[native ${m}_twin]}")
      shape_r+=("$s"); twin_r+=("$w"); fid+=("$(ratio "$s" "$w")")
      # Threads that are busy only part of the time pay the twin's sampling
      # cost c only on their work: expected shape ratio = Ts / (Ts + Tw c),
      # T = 1 / native throughput. Only where threads <= cores (else the
      # CPU, not the thread, sets the pace, and the plain fidelity holds).
      corr+=("$(awk -v s="$s" -v w="$w" -v ts="${thr[native $m]}" -v tw="${thr[native ${m}_twin]}" \
        'BEGIN {c = 1 / w - 1; e = (1 / ts) / (1 / ts + c / tw); printf "%.5f", s / e}')")
      unset thr
    done
    f=$(median "${fid[@]}")
    c="-"
    if [[ ${METRIC:-throughput} == throughput ]] && ((t <= $(nproc))); then
      f=$(median "${corr[@]}")
      c=$(printf '%.3f ±%.1f%%' "$f" "$(relmad "${corr[@]}")")
    fi
    printf '%-8s %7s %9.3f ±%4.1f%% %9.3f ±%4.1f%% %9.3f ±%4.1f%% %16s\n' "$m" "$t" \
      "$(median "${shape_r[@]}")" "$(relmad "${shape_r[@]}")" \
      "$(median "${twin_r[@]}")" "$(relmad "${twin_r[@]}")" \
      "$(median "${fid[@]}")" "$(relmad "${fid[@]}")" "$c"
    [[ -z ${RESULTS:-} ]] || echo "$m $t $f $(relmad "${fid[@]}") ${fid[*]}" >>"$RESULTS"
    worst=$(awk -v w="$worst" -v f="$f" 'BEGIN {d = f - 1; d = d < 0 ? -d : d; e = w - 1; e = e < 0 ? -e : e; print ((d > e) ? f : w)}')
  done
done
echo "uptime after: $(uptime)"
awk -v w="$worst" 'BEGIN {printf "worst fidelity %.3f (target 0.98..1.02): %s\n", w, (w >= 0.98 && w <= 1.02) ? "PASS" : "FAIL"}'
