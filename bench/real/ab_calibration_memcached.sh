#!/usr/bin/env bash
# ab_calibration_memcached.sh: A/A and A/B profile pools of a real loopback
# server, memcached (-t 2) under mc_load, for the diff gate's calibration
# (issue 20), in bench/calibration/evaluate.sh's layout.
#
# Both sides run ONE binary, memcached built with memcached-ab-slow.patch.
# A: ANDWEORC_MC_SLOW unset (one branch per request); B30: ANDWEORC_MC_SLOW=
# $SLOW (default 600: about a quarter of the server's samples) extra dependent multiply-adds per request in
# andweorc_mc_slow(), called where a request is parsed. The measured size
# (the function's share of the server's samples in B) is printed at the end.
# Each round: A a, A b, B30, interleaved so load drifts hit every pool.
#
#   bash bench/real/ab_calibration_memcached.sh OUT_DIR
#   bench/calibration/evaluate.sh build/bin/andweorc OUT_DIR 1 2 3 4
# Environment: ROUNDS (default 16), AB_SECONDS (default 4: load per run),
#   SLOW, ANDWEORC_REAL_PORT.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
source "$here/programs.sh"
out=${1:?usage: ab_calibration_memcached.sh OUT_DIR}
ROUNDS=${ROUNDS:-16}
SLOW=${SLOW:-600}
secs=${AB_SECONDS:-4}
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
mkdir -p "$out/memcached/A" "$out/memcached/B30"
BUILD_PATCH="$here/memcached-ab-slow.patch" setup_memcached >"$out/memcached/setup.log" 2>&1 ||
  { echo "build failed: $out/memcached/setup.log" >&2; exit 1; }
# REGION for evaluate.sh (grep BRE on the label's FILE:LINE): the lines of
# the extra loop, whichever the diff names first.
src="$(dirname "$MEMCACHED")/proto_text.c"
loop=$(grep -n 'h = h \* 2654435761U' "$src" | cut -d: -f1)
REGION=".*proto_text\.c:\($((loop - 1))\|$loop\|$((loop + 1))\)"
{
  echo "units 0"
  echo "seconds $secs"
  echo "regression B30 ANDWEORC_MC_SLOW=$SLOW $REGION"
} >"$out/memcached/meta"
one() {   # one profile: $1 output, $2 ANDWEORC_MC_SLOW
  ANDWEORC_MC_SLOW=$2 serve "" "$1" "$secs" >/dev/null
}
echo "== memcached A/A and A/B pools: $ROUNDS rounds, ${secs} s of load per run, B30: ANDWEORC_MC_SLOW=$SLOW ($(date -u +%H:%M:%S) UTC, $(load))"
for ((r = 0; r < ROUNDS; ++r)); do
  n=$(printf '%02d' "$r")
  one "$out/memcached/A/${n}a.json" 0
  one "$out/memcached/A/${n}b.json" 0
  one "$out/memcached/B30/$n.json" "$SLOW"
  echo "-- round $n done ($(date -u +%H:%M:%S), $(load))"
done
# The regression's size: andweorc_mc_slow's share of the samples in B.
for f in "$out/memcached/B30"/*.json; do
  python3 - "$f" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
fr = j["frames"]; tot = 0; slow = 0
for s in j["stacks"]:
    tot += s["samples"]
    if any(fr[i]["function"] == "andweorc_mc_slow" for i in s["frames"]):
        slow += s["samples"]
print(f"{sys.argv[1]}: andweorc_mc_slow {100 * slow / max(tot, 1):.1f}% of samples")
PY
done | awk '{print} {gsub("%","",$3); s += $3; n++} END {if (n) printf "-- B30: andweorc_mc_slow is %.1f%% of the samples on average (%d runs)\n", s / n, n}'
echo "   (profiles: $out/memcached)"
