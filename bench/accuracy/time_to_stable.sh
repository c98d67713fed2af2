#!/usr/bin/env bash
# Time to a stable answer: seconds until `andweorc run --until-stable` stops
# each workload (the stopping rule of docs/causal-analysis.md fired), the
# state it reached, and whether its leader and the report's top line are the
# workload's BOTTLENECK region. Target: <= 10 s per workload.
#
# Usage: bench/accuracy/time_to_stable.sh [build-dir]
# Environment: WORKLOADS="..." subset; MAX_TIME (default 30) seconds of
#              work per run (the run stops at the latest then);
#              ANDWEORC_RUN_ARGS extra `run` options; KEEP_DIR=dir keeps
#              each profile as dir/<workload>.json (and the load average
#              before the run in dir/<workload>.load).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build}
bin="$build/bin"; tool="$bin/andweorc"
max=${MAX_TIME:-30}
[[ -x $tool ]] || { echo "error: $tool not found: build the andweorc target first" >&2; exit 1; }
tmp=$ACC_TMP; trap 'rm -rf "$tmp"' EXIT

printf '%-13s %-10s %5s %8s %-8s %-22s %s\n' workload bottleneck line "stop(s)" state leader "report top"
slow=0
for w in $(acc_workloads); do
  read -r bn bl <<<"$(acc_target "$w")"
  if [[ $bn == none ]]; then
    printf '%-13s %-10s %5s %8s  %s\n' "$w" none - - "no stable bottleneck (see its source): skipped"
    continue
  fi
  thr=$(acc_field "$(acc_run "$bin/accuracy_$w")" throughput)
  units=$(awk -v t="$thr" -v b="$max" 'BEGIN {u = int(t * b * 1.5); print u < 1 ? 1 : u}')
  [[ -n ${KEEP_DIR:-} ]] && mkdir -p "$KEEP_DIR" && cut -d' ' -f1-3 /proc/loadavg > "$KEEP_DIR/$w.load"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$tool" run -q --until-stable --max-time "${max}s" -o "$tmp/p.json" ${ANDWEORC_RUN_ARGS:-} \
    -- "$bin/accuracy_$w" "$units" > /dev/null 2>&1 || true
  secs=$(acc_since "$t0")
  [[ -n ${KEEP_DIR:-} ]] && cp "$tmp/p.json" "$KEEP_DIR/$w.json" 2>/dev/null || true
  state=$(awk '/"convergence"/ {c = 1} c && /"state"/ {gsub(/[",]/, ""); print $2; exit}' "$tmp/p.json")
  leader=$(awk '/"convergence"/ {c = 1} c && /"leader"/ {gsub(/[",]/, ""); print $2; exit}' "$tmp/p.json")
  top=$(acc_top_row "$tool" "$tmp/p.json")
  IFS=$'\t' read -r tfile tline _ _ _ _ _ _ _ tsig _ <<<"$top" || true
  tag=$(acc_tag "${tfile:-}" "${tline:-}" "${tsig:-}")
  if [[ -n ${leader:-} && ${leader} != *:* ]]; then
    # --granularity auto: a whole function leads (each region is a function
    # of its own name).
    lead="$leader()"
    [[ $leader == "$bn" ]] && lead+=" ok" || lead+=" WRONG"
  else
    lead="$(basename "${leader%:*}"):${leader##*:}"
    [[ ${leader:-} == */$w.cc:$bl ]] && lead+=" ok" || lead+=" WRONG"
  fi
  [[ $state == stable || $state == flat ]] || slow=$((slow + 1))
  printf '%-13s %-10s %5s %8s %-8s %-22s %s\n' "$w" "$bn" "$bl" "$secs" "${state:-none}" "$lead" "$tag"
done
echo "(* = significant). Workloads whose run did not settle within ${max} s: $slow"
