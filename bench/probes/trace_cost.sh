#!/usr/bin/env bash
# trace_cost.sh: cost per traced call of `andweorc run --trace` (entry and
# ret hooks, the shadow stack, the ring and its drain), measured on the e2e
# program tests/e2e/programs/traced.cc: `traced count N paced` times its
# own loops of N calls (10,000 every 25 ms, so the ring keeps them all) of traced_work() (a ~1 ns function); runs with and without
# --trace traced_work alternate, both under `andweorc run --no-experiments`
# (same sampling), and the medians' difference is the cost per call.
# Usage: bench/probes/trace_cost.sh BUILD_DIR [ROUNDS] [CALLS]
set -euo pipefail
build=${1:?usage: trace_cost.sh BUILD_DIR [ROUNDS] [CALLS]}
rounds=${2:-5}
calls=${3:-500000}
tool=$build/bin/andweorc
prog=$build/tests/e2e/programs/traced
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
plain=() traced=() recorded=()
for ((r = 0; r < rounds; ++r)); do
  plain+=("$("$tool" run -q --no-experiments -o "$dir/a.json" -- "$prog" count \
    "$calls" paced | awk '/ns_per_call/ {print $2}')")
  traced+=("$("$tool" run -q --no-experiments --trace traced_work \
    -o "$dir/b.json" -- "$prog" count "$calls" paced | awk '/ns_per_call/ {print $2}')")
  recorded+=("$(python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["traces"][0]; print(len(t["durations_ns"]))' "$dir/b.json")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
mp=$(median "${plain[@]}")
mt=$(median "${traced[@]}")
echo "calls per run: $calls; rounds: $rounds (interleaved)"
echo "untraced: ${plain[*]} ns/call (median $mp)"
echo "traced:   ${traced[*]} ns/call (median $mt)"
echo "recorded calls per run: ${recorded[*]}"
awk -v a="$mp" -v b="$mt" 'BEGIN {printf "cost per traced call: %.1f ns\n", b - a}'
