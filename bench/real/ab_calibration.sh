#!/usr/bin/env bash
# ab_calibration.sh: A/A and A/B profile pools of a real program for the
# diff gate's calibration (issue 20), in bench/calibration/evaluate.sh's
# layout, so evaluate.sh judges them like the known-answer workloads.
#
# Both sides of a program run ONE binary, built with a patch that adds a
# known regression behind an environment variable (A: off, B30: on):
#  - PROGRAM=zstd (default): zstd -3 with zstd-ab-slow-doublefast.patch.
#    A: ANDWEORC_ZSTD_SLOW=0 (the patch then costs one load per 128 KiB
#    block); B30: ANDWEORC_ZSTD_SLOW=$SLOW (default 8: extra dependent
#    multiply-adds in ZSTD_compressBlock_doubleFast, andweorc's top region
#    for zstd -3, about 30% more time in that region).
#  - PROGRAM=memcached: memcached -t 2 under mc_load (a real loopback
#    server) with memcached-ab-slow.patch. A: ANDWEORC_MC_SLOW=0 (one branch
#    per request); B30: ANDWEORC_MC_SLOW=$SLOW (default 600: about a sixth
#    to a quarter of the server's samples) extra dependent multiply-adds per
#    request in andweorc_mc_slow(), called where a request is parsed.
#  - PROGRAM=leveldb: db_bench fillrandom (2 writer threads, a progress point
#    per row) with leveldb-ab-slow.patch. A: ANDWEORC_LDB_SLOW=0 (one branch
#    per row); B30: ANDWEORC_LDB_SLOW=$SLOW (default 200: about a sixth of
#    the samples) extra dependent multiply-adds per row in
#    andweorc_ldb_slow(), called from MemTable::Add.
# The measured size of the regression is printed at the end, from the runs'
# own samples. Each round: A a, A b, B30, interleaved so load drifts hit
# every pool.
#
#   bash bench/real/ab_calibration.sh OUT_DIR                     # zstd
#   PROGRAM=memcached bash bench/real/ab_calibration.sh OUT_DIR   # memcached
#   PROGRAM=leveldb bash bench/real/ab_calibration.sh OUT_DIR     # LevelDB
#   bench/calibration/evaluate.sh build/bin/andweorc OUT_DIR 1 2 3 4
# (bench/real/ab_calibration_memcached.sh OUT_DIR is the second line.)
# Environment: PROGRAM, ROUNDS (default 16), SLOW, ANDWEORC_RUN_ARGS (extra
#   run options); zstd: AB_COPIES (default 2: 2 x 64 MiB per run, ~2-3 s of
#   CPU per run); memcached: AB_SECONDS (default 4: load per run),
#   ANDWEORC_REAL_PORT; leveldb: AB_ROWS (default 800000 rows per thread,
#   ~4 s per run).
set -uo pipefail
shopt -s nullglob   # a pool without runs (ROUNDS=0) has no sizes to print
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
out=${1:?usage: [PROGRAM=zstd|memcached|leveldb] ab_calibration.sh OUT_DIR}
PROGRAM=${PROGRAM:-zstd}
ROUNDS=${ROUNDS:-16}
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
pool="$out/$PROGRAM"

# share_of FUNCTION: FUNCTION's share of the samples of each B30 profile
# (inclusive), and the mean over them.
share_of() {
  local f
  for f in "$pool/B30"/*.json; do
    python3 - "$f" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
fr = j["frames"]; tot = 0; slow = 0
for s in j["stacks"]:
    tot += s["samples"]
    if any(fr[i]["function"] == sys.argv[2] for i in s["frames"]):
        slow += s["samples"]
print(f"{sys.argv[1]}: {sys.argv[2]} {100 * slow / max(tot, 1):.1f}% of samples")
PY
  done | awk -v fn="$1" '{print} {gsub("%","",$3); s += $3; n++}
    END {if (n) printf "-- B30: %s is %.1f%% of the samples on average (%d runs)\n", fn, s / n, n}'
}

# build_with PATCH SETUP: SETUP (setup_P) with PATCH applied, its log in the
# pool; exits on failure.
build_with() {
  mkdir -p "$pool"
  BUILD_PATCH="$here/$1" "$2" >"$pool/setup.log" 2>&1 ||
    { echo "build failed: $pool/setup.log" >&2; exit 1; }
}
# loop_region FILE NAME_BRE: REGION for the known-cost loop of FILE (the
# line before it, its own, the one after), unless REGION is set.
loop_region() {
  [ -n "${REGION:-}" ] && return
  local loop; loop=$(slow_loop_line "$1")
  REGION=".*$2:\($((loop - 1))\|$loop\|$((loop + 1))\)"
}

# Per program: the build, REGION (the slowed code as diff's "time went to"
# names it, a grep BRE for evaluate.sh, matched against the label's
# FILE:LINE: the extra loop's lines, whichever of them comes first), the
# meta's units and seconds, knob (the B30 variable), one() (one profile:
# $1 output, $2 the knob's value) and size() (the regression's size).
case $PROGRAM in
  zstd)
    SLOW=${SLOW:-8}
    ZSTD_COPIES=${AB_COPIES:-2} # programs.sh's ZSTD_COPIES is for overhead runs
    build_with zstd-ab-slow-doublefast.patch setup_zstd
    if [ -z "${REGION:-}" ]; then
      body=$(slow_loop_line "$(dirname "$ZSTD")/../lib/compress/zstd_double_fast.c")
      REGION=".*zstd_double_fast\.c:\($((body - 1))\|$body\)"
    fi
    units=$ZSTD_COPIES secs=0 knob=ANDWEORC_ZSTD_SLOW
    what="$ZSTD_COPIES x 64 MiB per run"
    mapfile -t cmd < <(zstd_cmd "$ZSTD_COPIES")
    one() {
      ANDWEORC_ZSTD_SLOW=$2 "$ANDWEORC" run -q -o "$1" "${RUN_ARGS[@]}" -- "${cmd[@]}" >/dev/null
    }
    # Samples in ZSTD_compressBlock_doubleFast (inclusive) per progress-point
    # visit, median per pool.
    size() {
      local p f vals
      for p in A B30; do
        vals=()
        for f in "$pool/$p"/*.json; do
          "$ANDWEORC" report "$f" --format folded >"$f.folded" 2>/dev/null
          vals+=("$(python3 "$here/analyze.py" region "$f.folded" "$f" ZSTD_compressBlock_doubleFast)")
          rm -f "$f.folded"
        done
        echo "-- $p: region samples per visit, median $(median "${vals[@]}") (${#vals[@]} runs)"
      done
    }
    ;;
  memcached)
    SLOW=${SLOW:-600}
    secs=${AB_SECONDS:-4}
    build_with memcached-ab-slow.patch setup_memcached
    loop_region "$(dirname "$MEMCACHED")/proto_text.c" 'proto_text\.c'
    units=0 knob=ANDWEORC_MC_SLOW
    what="${secs} s of load per run"
    one() {
      ANDWEORC_MC_SLOW=$2 serve "" "$1" "$secs" >/dev/null
    }
    size() { share_of andweorc_mc_slow; }
    ;;
  leveldb)
    SLOW=${SLOW:-200}
    rows=${AB_ROWS:-800000}
    build_with leveldb-ab-slow.patch setup_leveldb
    loop_region "$(dirname "$DB_BENCH")/../db/memtable.cc" 'memtable\.cc'
    units=$((2 * rows)) secs=0 knob=ANDWEORC_LDB_SLOW
    what="$rows rows per thread per run"
    mapfile -t cmd < <(leveldb_cmd "$rows" | tr ' ' '\n')
    one() {
      ANDWEORC_LDB_SLOW=$2 "$ANDWEORC" run -q -o "$1" "${RUN_ARGS[@]}" -- "${cmd[@]}" >/dev/null 2>&1
      rm -rf "$DB_DIR"
    }
    size() { share_of andweorc_ldb_slow; }
    ;;
  *)
    echo "PROGRAM must be zstd, memcached or leveldb, not '$PROGRAM'" >&2
    exit 2
    ;;
esac

mkdir -p "$pool/A" "$pool/B30"
{
  echo "units $units"
  echo "seconds $secs"
  echo "regression B30 $knob=$SLOW $REGION"
} >"$pool/meta"
echo "== $PROGRAM A/A and A/B pools: $ROUNDS rounds, $what, B30: $knob=$SLOW, region $REGION ($(date -u +%H:%M:%S) UTC, $(load))"
for ((r = 0; r < ROUNDS; ++r)); do
  n=$(printf '%02d' "$r")
  one "$pool/A/${n}a.json" 0
  one "$pool/A/${n}b.json" 0
  one "$pool/B30/$n.json" "$SLOW"
  echo "-- round $n done ($(date -u +%H:%M:%S), $(load))"
done
size
echo "   (profiles: $pool)"
