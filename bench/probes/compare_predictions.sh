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
# with the workloads' flags. UNIT_LINE (default: the line before the
# emptied one, the unit's last statement) is probed. For each region and
# round, both builds run `andweorc run --fixed-line REGION --fixed-speedup
# PCT` (interleaved, the order alternating each round) and the region's
# impact for point "unit" gives predicted = slope * s. Prints the median over
# rounds of each and their difference (target: within 1 point).
#
# Environment: WORKLOAD=serial (a workload whose only point is "unit"),
#   SPEEDUP=0.2, PRED_WORK=5 (times the default work), UNIT_LINE=N,
#   MECHANISM=auto|uprobe|breakpoint, RESULTS=file.tsv (per-round values).
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
unit_line=${UNIT_LINE:-$((progress_line - 1))}
mkdir -p "$tmp/src"
sed "${progress_line}s/ANDWEORC_PROGRESS(\"unit\");/;/" "$src" > "$tmp/src/$w.cc"
cp "$ACC_SRC/common.h" "$tmp/src/"
unannotated="$tmp/unannotated_$w"
g++ -std=c++20 -g -O2 -fno-omit-frame-pointer -fno-ipa-icf -I "$root/include" \
  -pthread "$tmp/src/$w.cc" -o "$unannotated"
units=$(( $(acc_field "$("$annotated")" units) * pred_work ))
pct=$(awk -v s="$s" 'BEGIN {printf "%g", 100 * s}')
echo "workload $w, $units units per run, line speed-up ${pct}%, unit line $w.cc:$unit_line: $(sed -n "${unit_line}p" "$src" | sed 's/^ *//')" >&2

# predict BINARY LINE [run options...]: predicted % or n/a; also checks that
# the run counted exactly `units` visits of "unit".
predict() {
  local bin=$1 line=$2; shift 2
  rm -f "$tmp/p.json"
  if ! "$tool" run -q -o "$tmp/p.json" --fixed-line "$w.cc:$line" \
      --fixed-speedup "$pct" "$@" -- "$bin" "$units" > "$tmp/out" 2> "$tmp/err"; then
    echo "n/a"; cat "$tmp/err" >&2; return
  fi
  local visits
  visits=$("$tool" report "$tmp/p.json" 2>&1 | awk '$1 == "unit" && $2 == "throughput" {gsub(",", "", $3); print $3}')
  [[ $visits == "$units" ]] || echo "  warning: unit counted $visits times, the program did $units units" >&2
  acc_analysis "$tool" "$tmp/p.json" |
    awk -F'\t' -v l="$line" -v s="$s" '$4 == "unit" && $2 == l && $5 != "-" && $5 != "null" {
      printf "%.2f\n", 100 * $5 * s; found = 1; exit } END { if (!found) print "n/a" }'
}

probe_args=(--progress "unit=$w.cc:$unit_line" --probe-mechanism "${MECHANISM:-auto}")
"$tool" run --no-experiments -o "$tmp/check.json" "${probe_args[@]}" -- "$unannotated" 10 2>&1 |
  grep 'progress point' >&2 || true
: > "$tmp/rows"
while read -r r line; do
  for ((i = 0; i < rounds; i++)); do
    if ((i % 2 == 0)); then
      a=$(predict "$annotated" "$line"); u=$(predict "$unannotated" "$line" "${probe_args[@]}")
    else
      u=$(predict "$unannotated" "$line" "${probe_args[@]}"); a=$(predict "$annotated" "$line")
    fi
    printf '%s\t%s\t%s\t%s\n' "$r" "$line" "$a" "$u" >> "$tmp/rows"
    printf '  %s round %d: annotated %s%%, --progress %s%%\n' "$r" $((i + 1)) "$a" "$u" >&2
  done
done < <(acc_regions "$w")
[[ -n ${RESULTS:-} ]] && cp "$tmp/rows" "$RESULTS"

printf '%-10s %5s %12s %12s %8s\n' region line "annotated%" "--progress%" "diff pt"
for r in $(cut -f1 "$tmp/rows" | uniq); do
  line=$(awk -F'\t' -v r="$r" '$1 == r {print $2; exit}' "$tmp/rows")
  mapfile -t a < <(awk -F'\t' -v r="$r" '$1 == r && $3 != "n/a" {print $3}' "$tmp/rows")
  mapfile -t u < <(awk -F'\t' -v r="$r" '$1 == r && $4 != "n/a" {print $4}' "$tmp/rows")
  ma=$(acc_median "${a[@]}"); mu=$(acc_median "${u[@]}")
  printf '%-10s %5s %12s %12s %8s\n' "$r" "$line" "$ma" "$mu" \
    "$(awk -v a="$ma" -v u="$mu" 'BEGIN {if (a == "nan" || u == "nan") print "-"; else printf "%.2f", u - a}')"
done
