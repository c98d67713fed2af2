#!/usr/bin/env bash
# ab_calibration.sh: A/A and A/B profile pools of a real program for the
# diff gate's calibration (issue 20), in bench/calibration/evaluate.sh's
# layout, so evaluate.sh judges them like the known-answer workloads.
#
# zstd only: both sides run ONE binary, zstd built with
# zstd-ab-slow-doublefast.patch. A: ANDWEORC_ZSTD_SLOW=0 (the patch
# then costs one load per 128 KiB block); B30: ANDWEORC_ZSTD_SLOW=$SLOW
# (default 8: extra dependent multiply-adds in ZSTD_compressBlock_doubleFast,
# andweorc's top region for zstd -3, about 30% more time in that region;
# the measured figure is printed at the end from the runs' own samples).
# Each round: A a, A b, B30, interleaved so load drifts hit every pool.
#
#   bash bench/real/ab_calibration.sh OUT_DIR
#   bench/calibration/evaluate.sh build/bin/andweorc OUT_DIR 1 2 3 4
# Environment: ROUNDS (default 16), AB_COPIES (default 2: 2 x 64 MiB per
#   run, ~2-3 s of CPU per run), SLOW, ANDWEORC_RUN_ARGS (extra run options).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
out=${1:?usage: ab_calibration.sh OUT_DIR}
ROUNDS=${ROUNDS:-16}
SLOW=${SLOW:-8}
ZSTD_COPIES=${AB_COPIES:-2}   # programs.sh's ZSTD_COPIES is for overhead runs
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
mkdir -p "$out/zstd/A" "$out/zstd/B30"
BUILD_PATCH="$here/zstd-ab-slow-doublefast.patch" setup_zstd >"$out/zstd/setup.log" 2>&1 ||
  { echo "build failed: $out/zstd/setup.log" >&2; exit 1; }
# REGION: the slowed code as diff's "time went to" names it, a grep
# pattern for evaluate.sh (grep -x): the extra loop's two lines (inlined
# into ZSTD_compressBlock_doubleFast), whichever of them comes first.
if [ -z "${REGION:-}" ]; then
  body=$(grep -n 'h = h \* 2654435761U' "$(dirname "$ZSTD")/../lib/compress/zstd_double_fast.c" | cut -d: -f1)
  REGION=".*zstd_double_fast\.c:\($((body - 1))\|$body\)"
fi
{
  echo "units $ZSTD_COPIES"
  echo "seconds 0"
  echo "regression B30 ANDWEORC_ZSTD_SLOW=$SLOW $REGION"
} >"$out/zstd/meta"
mapfile -t cmd < <(zstd_cmd "$ZSTD_COPIES")
one() {   # one profile: $1 output, $2 ANDWEORC_ZSTD_SLOW
  ANDWEORC_ZSTD_SLOW=$2 "$ANDWEORC" run -q -o "$1" "${RUN_ARGS[@]}" -- "${cmd[@]}" >/dev/null
}
echo "== zstd A/A and A/B pools: $ROUNDS rounds, $ZSTD_COPIES x 64 MiB per run, B30: ANDWEORC_ZSTD_SLOW=$SLOW, region $REGION ($(date -u +%H:%M:%S) UTC, $(load))"
for ((r = 0; r < ROUNDS; ++r)); do
  n=$(printf '%02d' "$r")
  one "$out/zstd/A/${n}a.json" 0
  one "$out/zstd/A/${n}b.json" 0
  one "$out/zstd/B30/$n.json" "$SLOW"
  echo "-- round $n done ($(date -u +%H:%M:%S), $(load))"
done
# The regression's size, from the runs' own samples: samples in
# ZSTD_compressBlock_doubleFast (inclusive) per progress-point visit.
for pool in A B30; do
  vals=()
  for f in "$out/zstd/$pool"/*.json; do
    "$ANDWEORC" report "$f" --format folded >"$f.folded" 2>/dev/null
    vals+=("$(python3 "$here/analyze.py" region "$f.folded" "$f" ZSTD_compressBlock_doubleFast)")
    rm -f "$f.folded"
  done
  echo "-- $pool: region samples per visit, median $(median "${vals[@]}") (${#vals[@]} runs)"
done
echo "   (profiles: $out/zstd)"
