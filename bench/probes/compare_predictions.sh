#!/usr/bin/env bash
# compare_predictions.sh: an accuracy workload (bench/accuracy) without its
# progress point, profiled with `--progress unit=FILE:LINE` on the line that
# ends a unit of work, against the annotated build: the predicted program
# speed-up of every region, side by side.
#
# Usage: bench/probes/compare_predictions.sh [build-dir] [rounds]   (default: build 3)
#
# The unannotated build is the workload's source with its
# ANDWEORC_PROGRESS("unit") statement emptied (line numbers kept), compiled
# with the workloads' flags. The probed line (UNIT_LINE to force one) is
# chosen from the two builds' line tables: the line nearest the emptied one
# (before it first) that has an is_stmt row in both builds and that the
# probe, in a short run of each build, counts exactly once per unit (a line
# with no code in the unannotated build, like lock's emptied statement's
# neighbours, or one split into several pieces, is skipped). For each region and
# round, both builds run `andweorc run --fixed-line REGION --fixed-speedup
# PCT` (interleaved, the order alternating each round) and the region's
# impact for point "unit" gives predicted = slope * s. Prints the median over
# rounds of each and their difference (target: within 1 point).
# A third run per round profiles the annotated build with the probe added
# (point "probe" on the same line): both points are then measured in the
# same experiments, so their difference is the counting alone, free of the
# run-to-run noise of a shared machine ("same run" columns).
#
# True effects (bench/accuracy/README.md): serial's phase_a/b/c at 20%:
# 12 / 6 / 2 points.
# Environment: WORKLOAD=serial (a workload whose only point is "unit"),
#   SPEEDUP=0.2, PRED_WORK=5 (times the default work), UNIT_LINE=N,
#   MECHANISM=auto|patch|uprobe|breakpoint, RESULTS=file.tsv (per-round values),
#   KEEP=dir (keeps every run's profile there), QUIET=pct (before each run,
#   wait up to QUIET_WAIT s for the machine to be less than pct busy; lib.sh).
# Run-to-run noise: on a shared 2-vCPU machine one run's prediction can be
# tens of points off in either build, while the same-run columns stay within
# a fraction of a point; compare the builds only on a quiet machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../accuracy/lib.sh"
build=${1:-build}; rounds=${2:-3}
w=${WORKLOAD:-serial}; s=${SPEEDUP:-0.2}; pred_work=${PRED_WORK:-5}
tool="$build/bin/andweorc"; annotated="$build/bin/accuracy_$w"
tmp=$ACC_TMP; trap 'rm -rf "$tmp"' EXIT
[[ -x $tool && -x $annotated ]] || { echo "error: build andweorc_cli and accuracy_$w first" >&2; exit 1; }
src="$ACC_SRC/$w.cc"
root=$(cd "$ACC_DIR/../.." && pwd)

progress_line=$(grep -n 'ANDWEORC_PROGRESS("unit");' "$src" | head -1 | cut -d: -f1)
[[ -n $progress_line ]] || { echo "error: $w has no ANDWEORC_PROGRESS(\"unit\")" >&2; exit 1; }
if grep -v '^#include' "$src" | grep -v 'ANDWEORC_PROGRESS("unit")' | grep -q 'ANDWEORC_'; then
  echo "error: $w has other annotations; pick a workload whose only point is \"unit\"" >&2; exit 1
fi
mkdir -p "$tmp/src"
sed "${progress_line}s/ANDWEORC_PROGRESS(\"unit\");/;/" "$src" > "$tmp/src/$w.cc"
cp "$ACC_SRC/common.h" "$tmp/src/"
unannotated="$tmp/unannotated_$w"
g++ -std=c++20 -g -O2 -DNDEBUG -fPIE -fno-omit-frame-pointer -fno-ipa-icf -I "$root/include" \
  -pthread "$tmp/src/$w.cc" -o "$unannotated"
units=$(( $(acc_field "$("$annotated")" units) * pred_work ))
pct=$(awk -v s="$s" 'BEGIN {printf "%g", 100 * s}')
mechanism=${MECHANISM:-auto}

# Lines of $w.cc with an is_stmt row in binary $1 (what `--progress FILE:LINE`
# resolves to: the tool's resolver reads the same rows).
stmt_lines() {
  readelf -W --debug-dump=decodedline "$1" 2>/dev/null |
    awk -v f="$w.cc" '$1 == f && $NF == "x" && $2 ~ /^[0-9]+$/ {print $2}' | sort -un
}
# probe_count BINARY POINT LINE: visits of POINT with a probe on LINE in a
# run of $check_units units without experiments ("" if the run failed).
check_units=20
probe_count() {
  "$tool" run -q --no-experiments -o "$tmp/check.json" --progress "$2=$w.cc:$3" \
    --probe-mechanism "$mechanism" -- "$1" "$check_units" > /dev/null 2> "$tmp/check.err" || return 0
  "$tool" report "$tmp/check.json" 2>&1 |
    awk -v p="$2" '$1 == p && $2 == "throughput" {gsub(",", "", $3); print $3}'
}
# The probed line: UNIT_LINE, else the nearest line to the emptied one
# (before it, then after, up to 6 lines away) with code in both builds that
# counts one visit per unit in both.
pick_unit_line() {
  local both d l ca cu
  both=$(comm -12 <(stmt_lines "$annotated" | sort) <(stmt_lines "$unannotated" | sort) | sort -n)
  for d in 1 2 3 4 5 6; do
    for l in $((progress_line - d)) $((progress_line + d)); do
      grep -qx "$l" <<<"$both" || continue
      cu=$(probe_count "$unannotated" unit "$l"); ca=$(probe_count "$annotated" probe "$l")
      if [[ $cu == "$check_units" && $ca == "$check_units" ]]; then echo "$l"; return; fi
      echo "  line $l: counted ${cu:-?} (unannotated) and ${ca:-?} (annotated) of $check_units units; skipped" >&2
    done
  done
}

# predict POINT BINARY LINE [run options...]: predicted % for POINT or n/a
# (POINT "unit+probe": both, space-separated); also checks that the run
# counted exactly `units` visits of "unit".
predict() {
  local point=$1 bin=$2 line=$3; shift 3
  rm -f "$tmp/p.json"
  acc_wait_quiet
  if ! "$tool" run -q -o "$tmp/p.json" --fixed-line "$w.cc:$line" \
      --fixed-speedup "$pct" "$@" -- "$bin" "$units" > "$tmp/out" 2> "$tmp/err"; then
    echo "n/a"; cat "$tmp/err" >&2; return
  fi
  [[ -n ${KEEP:-} ]] && mkdir -p "$KEEP" && cp "$tmp/p.json" "$KEEP/$w-line$line-$(basename "$bin")-$point-$(date +%s%N).json"
  local visits
  visits=$("$tool" report "$tmp/p.json" 2>&1 | awk '$1 == "unit" && $2 == "throughput" {gsub(",", "", $3); print $3}')
  [[ $visits == "$units" ]] || echo "  warning: unit counted $visits times, the program did $units units" >&2
  acc_analysis "$tool" "$tmp/p.json" > "$tmp/analysis"
  local p out=""
  for p in ${point//+/ }; do
    out+="$(awk -F'\t' -v l="$line" -v s="$s" -v p="$p" '$4 == p && $2 == l && $5 != "-" && $5 != "null" {
      printf "%.2f", 100 * $5 * s; found = 1; exit } END { if (!found) printf "n/a" }' "$tmp/analysis") "
  done
  echo "${out% }"
}

if [[ -n ${UNIT_LINE:-} ]]; then
  unit_line=$UNIT_LINE
else
  unit_line=$(pick_unit_line)
  [[ -n $unit_line ]] || { echo "error: no line near $w.cc:$progress_line counts one visit per unit in both builds (set UNIT_LINE)" >&2; exit 1; }
fi
echo "workload $w, $units units per run, line speed-up ${pct}%, unit line $w.cc:$unit_line: $(sed -n "${unit_line}p" "$src" | sed 's/^ *//')" >&2
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
probe_args=(--progress "unit=$w.cc:$unit_line" --probe-mechanism "$mechanism")
"$tool" run --no-experiments -o "$tmp/check.json" "${probe_args[@]}" -- "$unannotated" 10 2>&1 |
  grep 'progress point' >&2 || true
: > "$tmp/rows"
while read -r r line; do
  for ((i = 0; i < rounds; i++)); do
    if ((i % 2 == 0)); then
      a=$(predict unit "$annotated" "$line"); u=$(predict unit "$unannotated" "$line" "${probe_args[@]}")
    else
      u=$(predict unit "$unannotated" "$line" "${probe_args[@]}"); a=$(predict unit "$annotated" "$line")
    fi
    read -r su sp < <(predict unit+probe "$annotated" "$line" --progress "probe=$w.cc:$unit_line" --probe-mechanism "$mechanism")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$line" "$a" "$u" "$su" "$sp" >> "$tmp/rows"
    printf '  %s round %d: annotated %s%%, --progress %s%%; same run: annotated %s%%, probe %s%%\n' \
      "$r" $((i + 1)) "$a" "$u" "$su" "$sp" >&2
  done
done < <(acc_regions "$w")
[[ -n ${RESULTS:-} ]] && cp "$tmp/rows" "$RESULTS"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

printf '%-10s %5s %12s %12s %8s   %s\n' region line "annotated%" "--progress%" "diff pt" "same run: annotated% probe% diff"
for r in $(cut -f1 "$tmp/rows" | uniq); do
  line=$(awk -F'\t' -v r="$r" '$1 == r {print $2; exit}' "$tmp/rows")
  mapfile -t a < <(awk -F'\t' -v r="$r" '$1 == r && $3 != "n/a" {print $3}' "$tmp/rows")
  mapfile -t u < <(awk -F'\t' -v r="$r" '$1 == r && $4 != "n/a" {print $4}' "$tmp/rows")
  mapfile -t sa < <(awk -F'\t' -v r="$r" '$1 == r && $5 != "n/a" {print $5}' "$tmp/rows")
  mapfile -t sp < <(awk -F'\t' -v r="$r" '$1 == r && $6 != "n/a" {print $6}' "$tmp/rows")
  mapfile -t sd < <(awk -F'\t' -v r="$r" '$1 == r && $5 != "n/a" && $6 != "n/a" {printf "%.2f\n", $6 - $5}' "$tmp/rows")
  ma=$(acc_median "${a[@]}"); mu=$(acc_median "${u[@]}")
  printf '%-10s %5s %12s %12s %8s   %9s %6s %5s\n' "$r" "$line" "$ma" "$mu" \
    "$(awk -v a="$ma" -v u="$mu" 'BEGIN {if (a == "nan" || u == "nan") print "-"; else printf "%.2f", u - a}')" \
    "$(acc_median "${sa[@]}")" "$(acc_median "${sp[@]}")" "$(acc_median "${sd[@]}")"
done
