#!/usr/bin/env bash
# A case study: does speeding up andweorc's recommendation speed the program
# up as predicted? Builds PROGRAM with and without PATCH and prints
#  - the region's speed-up s: samples inside FUNCTION (inclusive) per
#    progress-point visit, base vs patched (sampling-only runs);
#  - the prediction: the region's impact (and 95% interval) x s, the impact
#    taken from a profile of the base build (PROFILE=..., or a new one of
#    PROFILE_SECONDS with --granularity function);
#  - the measured program speed-up: 1 - base/patched native throughput
#    (time per unit of work saved), interleaved runs, median of REPS; and,
#    as a figure less sensitive to a shared machine's load, the CPU time
#    per unit of work (all samples per visit of the sampling-only runs).
#
#   bash bench/real/case-study.sh zstd|leveldb|memcached PATCH FUNCTION
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
prog=${1:?usage: case-study.sh PROGRAM PATCH FUNCTION}
patch=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
func=${3:?usage: case-study.sh PROGRAM PATCH FUNCTION}
REPS=${REPS:-5}
PROFILE_SECONDS=${PROFILE_SECONDS:-60}
dir="$REAL_DIR/results/case-$(date -u +%Y%m%d-%H%M%S)-$prog"
mkdir -p "$dir"
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
case "$prog" in zstd) bin=ZSTD ;; leveldb) bin=DB_BENCH ;; memcached) bin=MEMCACHED ;;
  *) echo "unknown program $prog" >&2; exit 2 ;; esac

BUILD_PATCH="" "setup_$prog" >"$dir/setup.log" 2>&1 || { echo "base build failed: $dir/setup.log"; exit 1; }
base=${!bin}
BUILD_PATCH="$patch" "setup_$prog" >>"$dir/setup.log" 2>&1 || { echo "patched build failed: $dir/setup.log"; exit 1; }
new=${!bin}
echo "== case study: $prog, $(basename "$patch"), region $func ($(date -u +%H:%M) UTC, $(load))"

if [ -z "${PROFILE:-}" ]; then
  PROFILE="$dir/base-function.json"
  printf -v "$bin" %s "$base"
  RUN_ARGS=(--granularity function)
  "long_$prog" "$PROFILE" "$PROFILE_SECONDS"
fi
"$ANDWEORC" report "$PROFILE" --format json >"$dir/base.report.json" 2>/dev/null
read -r impact low high where gran < <(python3 "$here/analyze.py" impact "$dir/base.report.json" "$func") ||
  { echo "no impact for $func in $PROFILE"; exit 1; }
echo "-- impact of $func ($gran, $where) in $PROFILE: $impact [$low, $high]"

tb=() tn=() rb=() rn=() cb=() cn=()
for ((i = 1; i <= REPS; i++)); do
  for side in base new; do
    printf -v "$bin" %s "${!side}"
    x=$("fixed_$prog" native "$dir/o.json")
    y=$("fixed_$prog" --no-experiments "$dir/$side.json")
    "$ANDWEORC" report "$dir/$side.json" --format folded >"$dir/$side.folded" 2>/dev/null
    r=$(python3 "$here/analyze.py" region "$dir/$side.folded" "$dir/$side.json" "$func")
    c=$(python3 "$here/analyze.py" region "$dir/$side.folded" "$dir/$side.json" "")
    if [ "$side" = base ]; then tb+=("$x"); rb+=("$r"); cb+=("$c"); else tn+=("$x"); rn+=("$r"); cn+=("$c"); fi
  done
  echo "   rep $i: throughput base ${tb[-1]} patched ${tn[-1]}; region samples/visit base ${rb[-1]} patched ${rn[-1]};" \
    "all samples/visit base ${cb[-1]} patched ${cn[-1]} ($(load))"
done
mtb=$(median "${tb[@]}"); mtn=$(median "${tn[@]}"); mrb=$(median "${rb[@]}"); mrn=$(median "${rn[@]}")
s=$(echo "1 - $mrn / $mrb" | bc -l)
measured=$(echo "100 * (1 - $mtb / $mtn)" | bc -l)
printf -- "-- region speed-up s = 1 - %.6f/%.6f = %.1f%%\n" "$mrn" "$mrb" "$(echo "100 * $s" | bc -l)"
printf -- "-- predicted program speed-up: impact x s = %.1f%% (95%% interval %.1f%% .. %.1f%%)\n" \
  "$(echo "100 * $impact * $s" | bc -l)" "$(echo "100 * $low * $s" | bc -l)" "$(echo "100 * $high * $s" | bc -l)"
printf -- "-- measured program speed-up (time per unit of work saved, median of %d native runs): %.1f%% (throughput %.1f -> %.1f)\n" \
  "$REPS" "$measured" "$mtb" "$mtn"
mcb=$(median "${cb[@]}"); mcn=$(median "${cn[@]}")
printf -- "-- CPU time per unit of work (all samples per visit, median): %.6f -> %.6f, %.1f%% less\n" \
  "$mcb" "$mcn" "$(echo "100 * (1 - $mcn / $mcb)" | bc -l)"
echo "   (logs and profiles: $dir)"
