#!/usr/bin/env bash
# attach_vs_run.sh: does a profile taken with `andweorc attach` predict what
# `run` predicts for the same program and window? (docs/attach.md)
#
# Usage: bench/attach/attach_vs_run.sh [build-dir] [rounds]   (default: build 3)
#
# For each workload of the known-answer suite (WORKLOADS, default "lock
# pipeline serial": two whose regions act through a lock or a condition
# variable, one that never blocks) and each of its regions, one experiment
# for the whole window (--fixed-line REGION --fixed-speedup SPEEDUP%), in
# three ways, interleaved, `rounds` times:
#   run      andweorc run --max-time DURATION (the program's work is large:
#            the tool ends it with SIGINT)
#   attach   the program started normally, `andweorc attach PID --duration`
#   nowrap   the same with --no-wrappers (the program's calls left bound to
#            libc: no delay inheritance, what attach gave before)
# Every way counts progress with the same probe (--progress unitp=FILE:LINE
# at the workload's ANDWEORC_PROGRESS line: an annotated point reached
# before an attach is not counted). Prints per region the median predicted
# program speed-up (slope x speed-up, percent) of each way, and the
# differences attach - run and nowrap - run in points.
#
# Environment: WORKLOADS, DURATION=8 (s), SPEEDUP=40 (%).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../accuracy/lib.sh"
build=${1:-build}; rounds=${2:-3}
tool="$build/bin/andweorc"
duration=${DURATION:-8}
speedup=${SPEEDUP:-40}
workloads=${WORKLOADS:-"lock pipeline serial"}
tmp=$ACC_TMP; trap 'rm -rf "$tmp"; kill $(jobs -p) 2>/dev/null || true' EXIT
awk_json="$ACC_DIR/json_analysis.awk"

# The impact (slope) of FILE:LINE for point unitp in profile $1, or "-".
slope_of() {
  "$tool" report --format json "$1" 2>/dev/null |
    awk -f "$awk_json" | awk -F'\t' -v l="$2" '$2 == l && $4 == "unitp" {print $5; exit}'
}

# One prediction: way $1, workload $2, region line $3, point line $4.
predict() {
  local way=$1 w=$2 line=$3 pline=$4 out="$tmp/$1.json"
  local bin="$build/bin/accuracy_$w" units=100000000
  local args=(--fixed-line "$w.cc:$line" --fixed-speedup "$speedup"
              --progress "unitp=$w.cc:$pline" -q -o "$out")
  rm -f "$out"
  case $way in
    run)
      "$tool" run --max-time "${duration}s" "${args[@]}" -- "$bin" "$units" \
        >/dev/null 2>&1 || true
      ;;
    attach|nowrap)
      "$bin" "$units" >/dev/null 2>&1 &
      local pid=$!
      sleep 0.5  # past start-up, as a running server would be
      local extra=(); [[ $way == nowrap ]] && extra=(--no-wrappers)
      "$tool" attach "$pid" --duration "${duration}s" "${args[@]}" "${extra[@]}" \
        >/dev/null 2>&1 || true
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      ;;
  esac
  local s; s=$(slope_of "$out" "$line")
  if [[ -z $s || $s == - ]]; then echo "-"; return; fi
  awk -v s="$s" -v p="$speedup" 'BEGIN {printf "%.1f", s * p}'
}

printf '%-10s %-10s %8s %8s %8s %12s %12s\n' workload region run attach nowrap \
  "attach-run" "nowrap-run"
for w in $workloads; do
  pline=$(grep -n 'ANDWEORC_PROGRESS("unit")' "$ACC_SRC/$w.cc" | head -1 | cut -d: -f1)
  while read -r region line; do
    declare -A got=([run]="" [attach]="" [nowrap]="")
    for ((r = 0; r < rounds; ++r)); do
      # The order rotates each round: drift favours no way.
      ways=(run attach nowrap); k=$((r % 3))
      for way in "${ways[@]:k}" "${ways[@]:0:k}"; do
        got[$way]+=" $(predict "$way" "$w" "$line" "$pline")"
      done
    done
    med() { acc_median $(printf '%s\n' $1 | grep -v '^-$' || true); }
    m_run=$(med "${got[run]}"); m_att=$(med "${got[attach]}")
    m_now=$(med "${got[nowrap]}")
    diff() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "") print "-"; else printf "%+.1f", a - b}'; }
    printf '%-10s %-10s %8s %8s %8s %12s %12s   (run:%s attach:%s nowrap:%s)\n' \
      "$w" "$region" "${m_run:--}" "${m_att:--}" "${m_now:--}" \
      "$(diff "$m_att" "$m_run")" "$(diff "$m_now" "$m_run")" \
      "${got[run]}" "${got[attach]}" "${got[nowrap]}"
  done < <(acc_regions "$w")
done
