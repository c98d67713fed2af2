#!/usr/bin/env bash
# A known answer on a real program, predicted and measured in one run.
#
#   bash bench/real/known_answer.sh zstd|memcached [SLOW]
#
# The region: an extra loop of SLOW dependent multiply-adds in the program's
# hot path, in a function of its own that is never inlined (zstd: per input
# byte / 16 of each block, beside the double-fast match finder,
# zstd-known-slow.patch; memcached: per request, memcached-ab-slow.patch),
# switched by an environment variable, so both sides run the same binary.
#  - measured: the program speed-up of removing the region (SLOW=0 against
#    SLOW), time per unit of work saved, 1 - rate(SLOW)/rate(0), from
#    interleaved native runs, median of REPS (default 6);
#  - predicted: the region's impact from `andweorc run --granularity
#    function --fixed-line LOOP` on the SLOW side (SECONDS, default 60),
#    times 100% (removing the region is a 100% speed-up of it), with its 95%
#    interval;
#  - what a user would see: a default `andweorc run` of the same length on
#    the SLOW side, where the region ranks (DEFAULT_RUN=0 skips it).
# Numbers from a shared machine need its load beside them: every line
# prints it. Results go to $REAL_DIR/results/known-TIME-PROGRAM.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
prog=${1:?usage: known_answer.sh zstd|memcached [SLOW]}
REPS=${REPS:-6}
SECONDS_PROFILE=${SECONDS_PROFILE:-60}
dir="$REAL_DIR/results/known-$(date -u +%Y%m%d-%H%M%S)-$prog"
mkdir -p "$dir"
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }

case "$prog" in
  zstd)
    SLOW=${2:-8} knob=ANDWEORC_ZSTD_SLOW
    BUILD_PATCH="$here/zstd-known-slow.patch" setup_zstd >"$dir/setup.log" 2>&1 ||
      { echo "build failed: $dir/setup.log" >&2; exit 1; }
    src="$(dirname "$ZSTD")/../lib/compress/zstd_double_fast.c"
    native() { export "$knob=$1"; fixed_zstd native "$dir/unused.json"; }
    profile() {   # OUT SECONDS ARGS...: on the SLOW side
      local out=$1 secs=$2; shift 2
      export "$knob=$SLOW"
      mapfile -t cmd < <(zstd_cmd 4000)
      "$ANDWEORC" run -q -o "$out" "$@" -- "${cmd[@]}" >/dev/null &
      local pid=$!; PIDS+=("$pid"); stop_after "$pid" "$secs"
    }
    ;;
  memcached)
    SLOW=${2:-600} knob=ANDWEORC_MC_SLOW
    BUILD_PATCH="$here/memcached-ab-slow.patch" setup_memcached >"$dir/setup.log" 2>&1 ||
      { echo "build failed: $dir/setup.log" >&2; exit 1; }
    src="$(dirname "$MEMCACHED")/proto_text.c"
    native() { export "$knob=$1"; serve native "$dir/unused.json" "$MC_SECONDS"; }
    profile() {   # OUT SECONDS ARGS...: on the SLOW side, under mc_load
      local out=$1 secs=$2; shift 2
      export "$knob=$SLOW"
      serve "$*" "$out" "$secs" >/dev/null
    }
    ;;
  *) echo "unknown program $prog (zstd or memcached)" >&2; exit 2 ;;
esac
loop=$(slow_loop_line "$src")
[ -n "$loop" ] || { echo "no slow loop in $src" >&2; exit 1; }
region="$(basename "$src"):$loop"
echo "== known answer: $prog, $knob=$SLOW, region $region ($(date -u +%H:%M) UTC, $(load))"

r0=() rs=()
for ((i = 1; i <= REPS; i++)); do
  r0+=("$(native 0)"); rs+=("$(native "$SLOW")")
  printf '   rep %d: rate %s=0 %.1f, %s=%s %.1f (%s)\n' "$i" "$knob" "${r0[-1]}" "$knob" "$SLOW" "${rs[-1]}" "$(load)"
done
m0=$(median "${r0[@]}"); ms=$(median "${rs[@]}")
measured=$(echo "100 * (1 - $ms / $m0)" | bc -l)

echo "-- fixed profile: --granularity function --fixed-line $region, ${SECONDS_PROFILE} s ($(load))"
profile "$dir/fixed.json" "$SECONDS_PROFILE" --granularity function --fixed-line "$region"
"$ANDWEORC" report "$dir/fixed.json" --format json >"$dir/fixed.report.json" 2>/dev/null
read -r impact low high where gran < <(python3 "$here/analyze.py" impact "$dir/fixed.report.json" andweorc_) ||
  { echo "no impact for the region in $dir/fixed.json"; exit 1; }
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['experiments']))" "$dir/fixed.json")
printf -- "-- predicted program speed-up of removing the region: %.1f%% (95%% interval %.1f%% .. %.1f%%; %s experiments)\n" \
  "$(echo "100 * $impact" | bc -l)" "$(echo "100 * $low" | bc -l)" "$(echo "100 * $high" | bc -l)" "$n"
printf -- "-- measured (1 - rate(%s)/rate(0), medians of %d interleaved native runs): %.1f%% (%.1f -> %.1f)\n" \
  "$SLOW" "$REPS" "$measured" "$ms" "$m0"
if (($(echo "$measured >= 100 * $low && $measured <= 100 * $high" | bc -l))); then
  echo "-- verdict: the measured speed-up is inside the predicted interval"
else
  echo "-- verdict: the measured speed-up is OUTSIDE the predicted interval"
fi

if [ "${DEFAULT_RUN:-1}" = 1 ]; then
  echo "-- a default run, ${SECONDS_PROFILE} s ($(load)): top regions"
  profile "$dir/default.json" "$SECONDS_PROFILE"
  "$ANDWEORC" report "$dir/default.json" --format json >"$dir/default.report.json" 2>/dev/null
  python3 "$here/analyze.py" top "$dir/default.report.json" 5 | sed 's/^/   /'
fi
echo "   (logs and profiles: $dir)"
