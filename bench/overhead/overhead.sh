#!/usr/bin/env bash
# Where the overhead goes, per program shape: each shape runs natively and
# under each profiler configuration, all configurations interleaved within a
# round (the order rotates every round), `rounds` rounds. Prints, per shape,
# the median native throughput, each configuration's median ratio to the
# native run of the same round, and the noise: the relative median absolute
# deviation (MAD) of the native runs and of each ratio.
#
# Configurations:
#   preload  libandweorc.so preloaded, no ANDWEORC_DATA_DIR: wrappers only,
#            no sampling (the cost of interposition)
#   perf     andweorc run --no-experiments --sampler auto (perf if allowed)
#   perf_noswitch  as perf, every thread stays on perf (no switch of
#            switch-heavy threads to the timer sampler)
#   timer    andweorc run --no-experiments --sampler timer
#   exp0     andweorc run --fixed-speedup 0 (default sampler: experiments
#            that delay nothing; what a user pays while profiling)
#
# Usage: bench/overhead/overhead.sh [build-dir] [rounds] [seconds]
#        (default: build 5 2)
# Environment:
#   SHAPES="cpu:1 lock:2 ..."   shape:threads pairs (see shapes.cc)
#   CONFIGS="preload perf ..."  subset of the configurations above
#   ANDWEORC_RUN_ARGS           extra `andweorc run` options for all runs
#   TOOL=<andweorc>             the CLI to use (default <build>/bin/andweorc);
#                               runs use <build>'s libandweorc.so
#   BASE_RUNTIME=<lib.so>       adds "<config>.base" for each configuration:
#                               the same run with this other runtime (before/
#                               after comparisons interleaved in one run)
#   METRIC=cpu                  compare CPU time per unit (all threads,
#                               user + system) instead of throughput: the
#                               printed ratio is native cpu / profiled cpu,
#                               so < 1 is a cost either way. Far steadier on
#                               a shared machine; does not see wall-time
#                               effects (sleep precision, lost wake-ups)
#   METRIC=wait                 waiting shapes: compare the median time one
#                               wait really took (ratio native / profiled: > 1
#                               = the program's waits got shorter profiled)
#   METRIC=vcsw                 voluntary context switches per unit (how often
#                               threads blocked; ratio native / profiled, so
#                               < 1 = more blocking profiled, e.g. a mutex
#                               made more contended)
#   RESULTS=<file>              also append "shape threads config ratio mad"
#                               lines there (bench/fidelity/fidelity.sh)
set -euo pipefail
build=${1:-build}; rounds=${2:-5}; secs=${3:-2}
bin="$build/bin"; tool=${TOOL:-$bin/andweorc}; shapes_bin="$bin/overhead_shapes"
lib=$(ls "$build"/lib/libandweorc.so "$build"/src/runtime/libandweorc.so 2>/dev/null | head -1 || true)
[[ -x $tool && -x $shapes_bin ]] || { echo "error: build the andweorc and overhead_shapes targets first ($tool, $shapes_bin)" >&2; exit 1; }
[[ -n $lib ]] || { echo "error: libandweorc.so not found under $build" >&2; exit 1; }
SHAPES=${SHAPES:-"cpu:1 cpu:2 lock:2 server:2 sleep:8 cpu:64 sleep:64"}
CONFIGS=${CONFIGS:-"preload perf timer exp0"}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

source "$(dirname "$0")/stats.sh"

# One run of configuration $1 on shape $2 with $3 threads; prints throughput.
run_one() {
  local out lib=$lib
  if [[ $1 == *.base ]]; then lib=$BASE_RUNTIME; fi
  export ANDWEORC_RUNTIME=$lib
  # shellcheck disable=SC2086
  case ${1%.base} in
    native) out=$("$shapes_bin" "$2" "$3" "$secs") ;;
    preload) out=$(env -u ANDWEORC_DATA_DIR LD_PRELOAD="$lib" "$shapes_bin" "$2" "$3" "$secs") ;;
    perf) out=$("$tool" run -q --no-experiments -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} -- "$shapes_bin" "$2" "$3" "$secs") ;;
    perf_noswitch) out=$(ANDWEORC_SAMPLER_SWITCH=0 "$tool" run -q --no-experiments -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} -- "$shapes_bin" "$2" "$3" "$secs") ;;
    timer) out=$("$tool" run -q --no-experiments --sampler timer -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} -- "$shapes_bin" "$2" "$3" "$secs") ;;
    exp0) out=$("$tool" run -q --fixed-speedup 0 -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} -- "$shapes_bin" "$2" "$3" "$secs") ;;
    *) echo "error: unknown configuration $1" >&2; exit 1 ;;
  esac
  if [[ ${METRIC:-throughput} == cpu ]]; then
    awk -v c="$(field "$out" cpu_us)" 'BEGIN {printf "%.6f", 1 / c}'
  elif [[ ${METRIC:-throughput} == vcsw ]]; then
    awk -v c="$(field "$out" vcsw)" 'BEGIN {printf "%.6f", 1 / (c + 0.00001)}'
  elif [[ ${METRIC:-throughput} == wait ]]; then
    awk -v c="$(field "$out" wait_us)" 'BEGIN {printf "%.6f", 1 / c}'
  else
    field "$out" throughput
  fi
}

if [[ -n ${BASE_RUNTIME:-} ]]; then
  with_base=""; for c in $CONFIGS; do with_base+="$c $c.base "; done; CONFIGS=$with_base
fi
read -ra configs <<<"native $CONFIGS"
printf '%-10s %12s' shape "native/${METRIC:-throughput}"
for c in "${configs[@]:1}"; do printf ' %15s' "$c"; done
printf '   (ratio to native; cpu: units per CPU-us; median of %d rounds, ±MAD%%; %s s runs)\n' "$rounds" "$secs"
for sh in $SHAPES; do
  shape=${sh%%:*}; threads=${sh##*:}
  declare -A thr=()
  for ((r = 0; r < rounds; r++)); do
    n=${#configs[@]}
    for ((k = 0; k < n; k++)); do
      c=${configs[$(((k + r) % n))]}
      thr[$c,$r]=$(run_one "$c" "$shape" "$threads")
    done
  done
  natives=(); for ((r = 0; r < rounds; r++)); do natives+=("${thr[native,$r]}"); done
  printf '%-10s %12.5g' "$shape:$threads" "$(median "${natives[@]}")"
  for c in "${configs[@]:1}"; do
    ratios=()
    for ((r = 0; r < rounds; r++)); do
      ratios+=("$(awk -v a="${thr[$c,$r]}" -v b="${thr[native,$r]}" 'BEGIN {printf "%.5f", a / b}')")
    done
    m=$(median "${ratios[@]}"); mad=$(relmad "${ratios[@]}")
    printf ' %8.3f ±%4.1f%%' "$m" "$mad"
    [[ -z ${RESULTS:-} ]] || echo "$shape $threads $c $m $mad" >>"$RESULTS"
  done
  printf '   native ±%s%%\n' "$(relmad "${natives[@]}")"
  unset thr
done
