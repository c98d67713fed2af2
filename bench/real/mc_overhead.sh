#!/usr/bin/env bash
# mc_overhead.sh: memcached's throughput under each way of running it,
# interleaved round by round, medians and ratios printed in one run (issue
# 11). A loopback server on a 2-core machine is where the wrappers' cost
# shows most: every lock, unlock and socket call of the workers goes through
# them, and the load generator shares the cores.
#
#   bash bench/real/mc_overhead.sh [ROUNDS] [MODE...]
#
# Modes: native; preload (libandweorc.so preloaded into the server alone, no
# ANDWEORC_DATA_DIR: the wrappers, no sampling, no experiments); noexp (andweorc run --no-experiments: sampling only, the
# default sampler); timer (the same with --sampler timer); exp0
# (--fixed-speedup 0: every experiment delays nothing, what a user pays
# while profiling); exp0.timer (exp0 with --sampler timer: its experiments
# are 4x longer, so this tells per-experiment costs from per-sample ones);
# MODE.base (any mode with the runtime in $BASE_RUNTIME, e.g. exp0.base, for
# before/after comparisons in one run); run:ARGS (andweorc run with ARGS,
# commas for spaces: run:--fixed-speedup,0,--no-follow-forks). Default: 5 rounds of native noexp
# exp0. Each run: MC_SECONDS (default 10, programs.sh) of `mc_load -t 2 -d 16` against
# `memcached -t 2`; requests per second as mc_load counts them, and the
# server's CPU time per request (all its threads, the profiler's included).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
rounds=${1:-5}
shift || true
modes=("$@")
((${#modes[@]})) || modes=(native noexp exp0)
# MC_SECONDS: programs.sh (default 10)
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
setup_memcached >/dev/null 2>&1 || { echo "memcached build failed" >&2; exit 1; }
out=$(mktemp -d)
trap 'cleanup; rm -rf "$out"' EXIT

one() {
  case $1 in
    native) serve native "" "$MC_SECONDS" ;;
    preload)
      SERVE_PRELOAD=${ANDWEORC_RUNTIME:-$(dirname "$ANDWEORC")/../lib/libandweorc.so} \
        serve native "" "$MC_SECONDS" ;;
    noexp) serve --no-experiments "$out/p.json" "$MC_SECONDS" ;;
    timer) serve "--no-experiments --sampler timer" "$out/p.json" "$MC_SECONDS" ;;
    exp0) serve "--fixed-speedup 0" "$out/p.json" "$MC_SECONDS" ;;
    exp0.timer) serve "--fixed-speedup 0 --sampler timer" "$out/p.json" "$MC_SECONDS" ;;
    *.base)
      [ -n "${BASE_RUNTIME:-}" ] || { echo "$1 needs BASE_RUNTIME" >&2; exit 2; }
      ANDWEORC_RUNTIME=$BASE_RUNTIME one "${1%.base}" ;;
    run:*) serve "$(tr , ' ' <<<"${1#run:}")" "$out/p.json" "$MC_SECONDS" ;;
    *) echo "unknown mode $1" >&2; exit 2 ;;
  esac
}

export SERVER_CPU=1  # serve prints requests/s and CPU us per request
echo "== memcached -t 2, ${MC_SECONDS} s of mc_load -t 2 -d 16 per run, $rounds rounds ($(date -u +%H:%M:%S) UTC, $(load))"
for ((r = 0; r < rounds; ++r)); do
  line="round $r:"
  for m in "${modes[@]}"; do
    v=$(one "$m")
    echo "$m $v" >>"$out/results"
    line+=" $m ${v% *} (${v#* } us)"
  done
  echo "$line ($(load))"
done
python3 - "$out/results" "${modes[0]}" <<'PY'
import collections, statistics, sys
d, cpu = collections.defaultdict(list), collections.defaultdict(list)
for l in open(sys.argv[1]):
    f = l.split()
    if len(f) < 3: continue  # a run that failed
    d[f[0]].append(float(f[1]))
    cpu[f[0]].append(float(f[2]))
ref = statistics.median(d[sys.argv[2]])
cref = statistics.median(cpu[sys.argv[2]])
for m, v in d.items():
    med, c = statistics.median(v), statistics.median(cpu[m])
    print(f"{m:10s} median {med / 1e3:7.1f}k requests/s  ratio to {sys.argv[2]} {med / ref:.3f}"
          f"  (runs: {' '.join(f'{x / 1e3:.0f}k' for x in v)})")
    print(f"{'':10s} server CPU {c:5.2f} us/request  ratio {c / cref:.3f}"
          f"  (runs: {' '.join(f'{x:.2f}' for x in cpu[m])})")
PY
