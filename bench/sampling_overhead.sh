#!/usr/bin/env bash
# Sampling overhead: throughput of a CPU-bound workload profiled by
# `andweorc run` (default 1 ms period) vs unprofiled, interleaved in one run.
# Usage: bench/sampling_overhead.sh [build-dir] [rounds] [threads]
set -euo pipefail
build=${1:-build}; rounds=${2:-7}; threads=${3:-1}
tool="$build/bin/andweorc"; work="$build/bin/cpu_workload"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
base=(); prof=()
for ((i = 0; i < rounds; i++)); do
  base+=("$("$work" "$threads")")
  prof+=("$("$tool" run -q --no-experiments -o "$tmp/p.json" -- "$work" "$threads")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
mb=$(median "${base[@]}"); mp=$(median "${prof[@]}")
samples=$("$tool" report -f json "$tmp/p.json" | grep -m1 '"samples"' | tr -dc 0-9)
awk -v b="$mb" -v p="$mp" -v t="$threads" -v r="$rounds" -v s="$samples" 'BEGIN {
  printf "threads=%d rounds=%d (interleaved, medians)\n", t, r
  printf "unprofiled: %.0f items/s\nprofiled:   %.0f items/s (%s samples in last run)\n", b, p, s
  printf "throughput ratio profiled/unprofiled = %.4f  (overhead %.2f%%)\n", p/b, (1-p/b)*100 }'
