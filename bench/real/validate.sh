#!/usr/bin/env bash
# Real-program validation of andweorc: for each program, time to the first
# significant region, the top-3 regions of two independent profile runs side
# by side (and whether they agree as a set), and overhead (interleaved runs,
# median of REPS: unprofiled vs every experiment at speed-up 0 vs sampling
# only).
#
#   bash bench/real/validate.sh [zstd|leveldb|memcached|all]   (default all)
#
# Environment (all optional):
#   ANDWEORC              the tool (default: build/bin/andweorc of this checkout)
#   ANDWEORC_REAL_DIR     builds and data (default /var/tmp/andweorc-real)
#   ANDWEORC_RUN_ARGS     extra `andweorc run` options for the profile runs
#                         (e.g. "--granularity function")
#   PROFILE_SECONDS       length of each profile run (default 60)
#   REPS                  overhead repetitions per configuration (default 3)
#   SKIP_PROFILES=1 / SKIP_OVERHEAD=1   do only one half
#   BUILD_PATCH           a case-study patch: measure that build instead
#   ANDWEORC_REAL_PORT    memcached's loopback port (default 21211)
# Profiles and logs go to $ANDWEORC_REAL_DIR/results/<date>/PROGRAM/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
source "$here/summarize.sh"
PROFILE_SECONDS=${PROFILE_SECONDS:-60}
REPS=${REPS:-3}
STAMP=$(date -u +%Y%m%d-%H%M%S)
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC (build it: ninja -C build andweorc andweorc_runtime)" >&2; exit 2; }

# ------------------------------------------------------------- measurement --
validate() {
  local prog=$1 dir="$REAL_DIR/results/$STAMP/$1"
  mkdir -p "$dir"
  echo "== $prog ($(date -u +%H:%M:%S) UTC, $(load))"
  "setup_$prog" >"$dir/setup.log" 2>&1 || { echo "setup failed, see $dir/setup.log"; return 1; }

  if [ "${SKIP_PROFILES:-0}" != 1 ]; then
    local r
    for r in 1 2; do
      local l0; l0=$(load)
      "long_$prog" "$dir/run$r.json" "$PROFILE_SECONDS"
      echo "-- run $r: ${PROFILE_SECONDS}s; before: $l0; after: $(load)"
      summarize_run "$dir" "$r"
    done
    compare_tops "$dir"
  fi

  if [ "${SKIP_OVERHEAD:-0}" != 1 ]; then
    local native=() fixed0=() noexp=() i x
    for ((i = 1; i <= REPS; i++)); do
      x=$("fixed_$prog" native "$dir/o.json"); native+=("$x")
      x=$("fixed_$prog" "--fixed-speedup 0" "$dir/o.json"); fixed0+=("$x")
      x=$("fixed_$prog" "--no-experiments" "$dir/o.json"); noexp+=("$x")
      echo "   rep $i: native $(printf %.1f "${native[-1]:-0}")  speedup-0 $(printf %.1f "${fixed0[-1]:-0}")" \
        " no-experiments $(printf %.1f "${noexp[-1]:-0}")  ($(load))"
    done
    rm -f "$dir/o.json"
    local mn mf me
    mn=$(median "${native[@]}"); mf=$(median "${fixed0[@]}"); me=$(median "${noexp[@]}")
    printf -- "-- overhead (median of %d, throughput lost): every experiment at speed-up 0: %.1f%%, --no-experiments: %.1f%% (native median %.1f)\n" \
      "$REPS" "$(echo "100 * (1 - $mf / $mn)" | bc -l)" "$(echo "100 * (1 - $me / $mn)" | bc -l)" "$mn"
  fi
  echo "   (profiles and logs: $dir)"
}

progs=("${1:-all}")
[ "${progs[0]}" = all ] && progs=(zstd leveldb memcached)
for p in "${progs[@]}"; do
  case "$p" in zstd | leveldb | memcached) validate "$p" ;;
    *) echo "unknown program: $p (zstd, leveldb, memcached, all)" >&2; exit 2 ;; esac
done
