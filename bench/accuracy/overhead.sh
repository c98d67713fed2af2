#!/usr/bin/env bash
# Overhead of causal profiling: each workload's throughput under
# `andweorc run --fixed-speedup 0` (experiments that delay nothing: the cost of
# sampling, interposition and experiment bookkeeping) vs unprofiled, runs
# interleaved, `rounds` times; the ratio is the median of per-round ratios.
# Target: ratio >= 0.99 (overhead <= 1%) for every workload, including
# mutex_heavy and epoll_server.
#
# Usage: bench/accuracy/overhead.sh [build-dir] [rounds]     (default: build 7)
# Environment: WORKLOADS="..." subset; ANDWEORC_RUN_ARGS extra `run` options.
# "foreign" = median share of the cores other jobs used during the unprofiled
# runs (see lib.sh): ratios measured on a busy machine are noise-bound.
# "own CPU" = median share of the profiled process's CPU time that the
# profiler's own threads (collector, coordinator) used, as the runtime
# measured it (profile processes[].profiler_cpu_s / cpu_s): a cost figure
# that the machine's noise does not move.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build}; rounds=${2:-7}
bin="$build/bin"; tool="$bin/andweorc"
[[ -x $tool ]] || { echo "error: $tool not found: build the andweorc target first" >&2; exit 1; }
if ! acc_tool_has "$tool" --fixed-speedup; then
  echo "error: 'andweorc run' has no --fixed-speedup option (no experiment support yet); cannot measure the overhead of experiments" >&2
  exit 1
fi
tmp=$ACC_TMP; trap 'rm -rf "$tmp"' EXIT

printf '%-13s %14s %14s %8s %9s %8s %8s\n' workload "unprofiled/s" "profiled/s" ratio overhead foreign "own CPU"
worst=""
for w in $(acc_workloads); do
  [[ -x $bin/accuracy_$w ]] || { echo "error: $bin/accuracy_$w not built" >&2; exit 1; }
  base=(); prof=(); ratios=(); foreign=(); own=()
  for ((i = 0; i < rounds; i++)); do
    # Alternate which one goes first, so neither always follows the other.
    if ((i % 2 == 0)); then
      ob=$(acc_run "$bin/accuracy_$w")
      # shellcheck disable=SC2086
      op=$(acc_run "$tool" run -q -o "$tmp/p.json" --fixed-speedup 0 ${ANDWEORC_RUN_ARGS:-} -- "$bin/accuracy_$w")
    else
      # shellcheck disable=SC2086
      op=$(acc_run "$tool" run -q -o "$tmp/p.json" --fixed-speedup 0 ${ANDWEORC_RUN_ARGS:-} -- "$bin/accuracy_$w")
      ob=$(acc_run "$bin/accuracy_$w")
    fi
    b=$(acc_field "$ob" throughput); p=$(acc_field "$op" throughput)
    foreign+=("$(acc_field "$ob" foreign)")
    # From the profile's process records (one line each).
    own+=("$(awk '/"executable":/ { for (i = 1; i <= NF; ++i) {
                      if ($i ~ /^"cpu_s":/) { sub(/^"cpu_s":/, "", $i); c += $i }
                      if ($i ~ /^"profiler_cpu_s":/) { sub(/^"profiler_cpu_s":/, "", $i); o += $i } } }
                  END { printf "%.3f", (c > 0) ? 100 * o / c : 0 }' FS='[,}]' "$tmp/p.json")")
    base+=("$b"); prof+=("$p"); ratios+=("$(awk -v b="$b" -v p="$p" 'BEGIN {printf "%.5f", p / b}')")
  done
  r=$(acc_median "${ratios[@]}")
  printf '%-13s %14.1f %14.1f %8.4f %8.2f%% %7s%% %7.2f%%\n' "$w" "$(acc_median "${base[@]}")" \
    "$(acc_median "${prof[@]}")" "$r" "$(awk -v r="$r" 'BEGIN {print 100 * (1 - r)}')" "$(acc_median "${foreign[@]}")" \
    "$(acc_median "${own[@]}")"
  worst=$(awk -v a="$worst" -v r="$r" 'BEGIN {print (a == "" || r < a) ? r : a}')
done
awk -v r="$worst" 'BEGIN {printf "worst ratio %.4f (target >= 0.99): %s\n", r, (r >= 0.99) ? "PASS" : "FAIL"; exit !(r >= 0.99)}'
