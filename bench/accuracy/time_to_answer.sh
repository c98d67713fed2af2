#!/usr/bin/env bash
# Time to answer: seconds of profiling until andweorc's top line for the
# workload's throughput point ("unit") is the workload's true bottleneck (the
# region marked BOTTLENECK in its source) and significant. Runs `andweorc run`
# (full causal profiling) on each workload with work for a growing budget of
# seconds (BUDGETS), and reports the wall time of the first profiled run that
# answers correctly. Target: <= 10 s per workload; <= 30 s for "bottleneck
# ranked first" at all.
#
# Usage: bench/accuracy/time_to_answer.sh [build-dir]
# Environment: WORKLOADS="..." subset; BUDGETS="2 5 10 20 30" seconds;
#              ANDWEORC_RUN_ARGS extra `run` options.
# "Top line" = the analysis entry of point "unit" with rank 1 (the first such
# entry when the report has no rank).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build}
bin="$build/bin"; tool="$bin/andweorc"
budgets=${BUDGETS:-"2 5 10 20 30"}
[[ -x $tool ]] || { echo "error: $tool not found: build the andweorc target first" >&2; exit 1; }
tmp=$ACC_TMP; trap 'rm -rf "$tmp"' EXIT

printf '%-13s %-10s %5s %10s  %s\n' workload bottleneck line "answer(s)" "top line per budget"
fails=0
for w in $(acc_workloads); do
  [[ -x $bin/accuracy_$w ]] || { echo "error: $bin/accuracy_$w not built" >&2; exit 1; }
  read -r bn bl <<<"$(acc_target "$w")"
  if [[ $bn == none ]]; then
    printf '%-13s %-10s %5s %10s  %s\n' "$w" none - - "no stable bottleneck (see its source): skipped"
    continue
  fi
  thr=$(acc_field "$(acc_run "$bin/accuracy_$w")" throughput)
  answer=""; trail=""
  for b in $budgets; do
    units=$(awk -v t="$thr" -v b="$b" 'BEGIN {u = int(t * b); print u < 1 ? 1 : u}')
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    acc_run "$tool" run -q -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} -- "$bin/accuracy_$w" "$units" > /dev/null || exit 1
    secs=$(acc_since "$t0")
    top=$(acc_top_row "$tool" "$tmp/p.json")
    if ! grep -q '"analysis"' "$tmp/report.json"; then
      echo "error: the report has no \"analysis\" array: 'andweorc run' ran no causal experiments (no experiment support yet?)" >&2
      exit 1
    fi
    IFS=$'\t' read -r tfile tline _ _ tslope _ _ _ _ tsig _ <<<"$top" || true
    tag=$(acc_tag "${tfile:-}" "${tline:-}" "${tsig:-}")
    trail+="${b}s:$tag "
    if [[ ${tfile:-} == */$w.cc && ${tline:-} == "$bl" && ${tsig:-} == true ]]; then
      answer=$secs; break
    fi
  done
  [[ -n $answer ]] || { answer=">${b}"; fails=$((fails + 1)); }
  printf '%-13s %-10s %5s %10s  %s\n' "$w" "$bn" "$bl" "$answer" "$trail"
done
echo "(* = significant). Workloads without a correct significant top line within the budgets: $fails"
((fails == 0))
