#!/usr/bin/env bash
# evaluate.sh: judges `andweorc diff --fail-on RULES` on the profiles that
# collect.sh made. For each program and each number of runs per side K:
#   A/A pairs: K runs of pool A against K other runs of pool A (disjoint
#     rounds): every alarm is false. Rate per rule and for the gate.
#   A/B pairs: K runs of pool A against K runs of a regression pool: the
#     regression is detected when the gate fails, and "named" when a finding
#     points at the slowed region's line (the first line of "time went to"
#     of a slowdown finding, or a new bottleneck on that line).
# K = 1: pairs use disjoint rounds (independent pairs: one per round).
# K > 1: PAIRS pairs (default 24), each of 2K distinct runs drawn at random
# (fixed seed) from the pools: within a pair no run is used twice, but
# pairs share runs, so they are not independent (the rates are estimates
# over the pool, with less information than PAIRS independent pairs).
#
# Usage: bench/calibration/evaluate.sh ANDWEORC OUT_DIR [K...]
# Environment: RULES (default "new-bottleneck,slowdown=5,cpu-slowdown=5,
#   region-slowdown=5");
#   PROGRAMS; PAIRS.
set -euo pipefail
tool=${1:?usage: evaluate.sh ANDWEORC OUT_DIR [K...]}
dir=${2:?usage: evaluate.sh ANDWEORC OUT_DIR [K...]}
shift 2
ks=${*:-"1 2 3"}
rules=${RULES:-"new-bottleneck,slowdown=5,cpu-slowdown=5,region-slowdown=5"}
npairs=${PAIRS:-24}
programs=${PROGRAMS:-$(cd "$dir" && ls -d */ | tr -d /)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# One diff; prints "exit nb sd named" (nb, sd: 1 when that rule fired, sd
# for slowdown or cpu-slowdown;
# named: 1 when a finding names $3, the slowed region's FILE:LINE).
judge() {
  local base=$1 new=$2 region=$3 rc=0
  # shellcheck disable=SC2086
  "$tool" diff $base -- $new --fail-on "$rules" > "$tmp/out" 2> "$tmp/err" || rc=$?
  if ((rc > 1)); then
    echo "error: diff $base -- $new failed:" >&2; cat "$tmp/err" >&2; exit 1
  fi
  local nb=0 sd=0 named=0
  grep -q '^  new-bottleneck: ' "$tmp/out" && nb=1
  grep -Eq '^  (cpu-|region-)?slowdown=[0-9.]*: ' "$tmp/out" && sd=1
  if [[ -n $region ]]; then
    # The label's path is relative to where the sources were found (e.g.
    # ../bench/accuracy/workloads/x.cc:36 from a build directory), so the
    # region (a grep BRE) matches the label's trailing path components.
    if grep -E '^  (cpu-|region-)?slowdown=[0-9.]*: ' "$tmp/out" | sed -n 's/.*time went to: //p' |
        awk '{print $1}' | grep -qx "\(.*/\)\{0,1\}$region"; then
      named=1
    fi
    if sed -n 's/^  new-bottleneck: //p' "$tmp/out" | awk '{print $1}' |
        grep -qx "\(.*/\)\{0,1\}$region"; then
      named=1
    fi
  fi
  echo "$rc $nb $sd $named"
}

# Files of pool $2 of program $1 for rounds $3..$4, side suffix $5.
files() {
  local r out=""
  for ((r = $3; r <= $4; ++r)); do
    out+=" $dir/$1/$2/$(printf '%02d' "$r")$5.json"
  done
  echo "$out"
}

# $1 distinct files drawn from the list on stdin, seed $2: one line.
draw() {
  awk -v k="$1" -v seed="$2" 'BEGIN {srand(seed)} {f[NR] = $0}
    END {for (i = 1; i <= k && i <= NR; ++i) {j = i + int(rand() * (NR - i + 1));
         t = f[i]; f[i] = f[j]; f[j] = t; printf " %s", f[i]} print ""}'
}

# Pair i (0-based) of K runs per side: "BASE-FILES|NEW-FILES". $1 program,
# $2 K, $3 i, $4 the NEW pool (A: an A/A pair).
pair() {
  local w=$1 k=$2 i=$3 pool=$4
  if ((k == 1)); then
    local n; n=$(printf '%02d' "$i")
    if [[ $pool == A ]]; then echo "$dir/$w/A/${n}a.json|$dir/$w/A/${n}b.json"
    else echo "$dir/$w/A/${n}a.json|$dir/$w/$pool/$n.json"; fi
    return
  fi
  local seed=$((1000 * k + i + 7919 * ${#pool})) all
  if [[ $pool == A ]]; then
    all=$(ls "$dir/$w/A"/*.json | draw $((2 * k)) "$seed")
    read -r -a f <<<"$all"
    echo "${f[*]:0:k}|${f[*]:k}"
  else
    echo "$(ls "$dir/$w/A"/*.json | draw "$k" "$seed")|$(ls "$dir/$w/$pool"/*.json | draw "$k" $((seed + 1)))"
  fi
}

printf '%-13s %-4s %2s %6s  %-10s %-10s %-10s  %s\n' program pair K pairs \
  "gate" new-bneck "slowdown" "detected & region named"
for w in $programs; do
  meta="$dir/$w/meta"
  [[ -f $meta ]] || continue
  rounds=$(ls "$dir/$w/A" | grep -c 'a\.json$')
  for k in $ks; do
    pairs=$npairs
    ((k == 1 && rounds < pairs)) && pairs=$rounds
    # A/A
    fa=0 nb=0 sd=0
    for ((i = 0; i < pairs; ++i)); do
      IFS='|' read -r bf nf <<<"$(pair "$w" "$k" "$i" A)"
      read -r rc a b _ <<<"$(judge "$bf" "$nf" "")"
      ((rc == 1)) && fa=$((fa + 1)); nb=$((nb + a)); sd=$((sd + b))
    done
    printf '%-13s %-4s %2d %6d  %-10s %-10s %-10s  %s\n' "$w" A/A "$k" "$pairs" \
      "$fa/$pairs" "$nb/$pairs" "$sd/$pairs" "-"
    # A/B, per regression
    while read -r _ name knob region; do
      n=$(ls "$dir/$w/$name" 2> /dev/null | grep -c '\.json$' || true)
      pb=$npairs; ((k == 1 && n < pb)) && pb=$n
      ((n >= k)) || continue
      det=0 nb=0 sd=0 named=0
      for ((i = 0; i < pb; ++i)); do
        IFS='|' read -r bf nf <<<"$(pair "$w" "$k" "$i" "$name")"
        read -r rc a b c <<<"$(judge "$bf" "$nf" "$region")"
        ((rc == 1)) && det=$((det + 1)); nb=$((nb + a)); sd=$((sd + b))
        ((rc == 1 && c == 1)) && named=$((named + 1))
      done
      printf '%-13s %-4s %2d %6d  %-10s %-10s %-10s  %s\n' "$w" "$name" "$k" "$pb" \
        "$det/$pb" "$nb/$pb" "$sd/$pb" "$named/$pb ($knob, $region)"
    done < <(grep '^regression ' "$meta")
  done
done
echo "gate: --fail-on $rules; A/A: false alarms; B..: detections. $(grep -h '^seconds' "$dir"/*/meta | head -1 | awk '{print $2}') s of work per run (see collect.sh)."
