#!/usr/bin/env bash
# Accuracy benchmark: real speed-ups of each region vs andweorc's predictions.
#
# Usage: bench/accuracy/run_accuracy.sh [build-dir] [rounds]     (default: build 5)
#
# For every workload, region and line speed-up s (SPEEDUPS, default "0.2 0.4"):
#  real:      runs the workload with ANDWEORC_SCALE_<REGION>=1-s, interleaved
#             with baseline runs (a baseline before every two scaled runs, the
#             order rotated each round), `rounds` times. Each scaled run is
#             compared with the mean of the baselines just before and after
#             it; the result is the median over rounds.
#             Program speed-up = (T0 - T1) / T0 = 1 - thr0 / thr1 (Coz's
#             definition: the share of the run time saved), in percent.
#  predicted: `andweorc run --fixed-line FILE:LINE --fixed-speedup PCT` on the
#             unmodified workload (PRED_WORK times its default work), then
#             `andweorc report --format json`; the "analysis" entry of that
#             line for point "unit" gives the impact (slope); predicted =
#             slope * s (json_analysis.awk reads analysis.points[].lines[]).
# Prints workload, region, line speed-up, actual % (and +-: half the
# interquartile range of the per-round values; best%: from the fastest runs,
# a cross-check on busy machines), predicted %, |error| against actual
# (percentage points), then the mean and max |error| against the targets.
#
# Environment:
#   WORKLOADS="serial lock"   subset (default: every workloads/*.cc)
#   REGIONS="fast lock/outside"  only these regions (name or workload/name)
#   SPEEDUPS="0.2 0.4"        line speed-ups
#   REAL=off                  skip the real runs (predictions only)
#   PREDICT=auto|off          auto: predict when the CLI supports it
#   WORK=1                    real runs do this many times the default work
#   PRED_WORK=15              prediction runs do this many times the default work
#                             (~10 s: ~50 experiments of the timer sampler's 200 ms)
#   ANDWEORC_RUN_ARGS=...     extra options for `andweorc run`, e.g. --end-to-end
#   PRED_RUNS=N               profiled runs per prediction, into the same -o
#                             (default 1; 8 with --end-to-end, whose runs accumulate)
#   FIXED_LINE_FILE=path|basename   how FILE is spelled in --fixed-line (default path)
#   RESULTS=file.tsv          also write the table as tab-separated values
#   QUIET=20                  before each real run, wait until the machine is
#                             less than 20% busy (QUIET_WAIT=120 s at most)
# Each workload's line also shows "foreign": the median share of all cores
# that OTHER jobs used during its runs. Above ~10%, multi-threaded workloads
# compete for CPU and their true effects are not those of an idle machine.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
build=${1:-build}; rounds=${2:-5}
bin="$build/bin"; tool="$bin/andweorc"
speedups=${SPEEDUPS:-"0.2 0.4"}
pred_work=${PRED_WORK:-15}
tmp=$ACC_TMP; trap 'rm -rf "$tmp"' EXIT

# ---- which parts run ----
predict=${PREDICT:-auto}
pred_note=""
if [[ $predict != off ]]; then
  if [[ ! -x $tool ]]; then
    predict=off; pred_note="prediction: not available ($tool not found)"
  elif ! acc_tool_has "$tool" --fixed-line --fixed-speedup; then
    predict=off; pred_note="prediction: not available (andweorc has no experiment support yet)"
  else
    predict=on
  fi
fi
[[ -n $pred_note ]] && echo "$pred_note" >&2

for w in $(acc_workloads); do
  [[ -x $bin/accuracy_$w ]] || { echo "error: $bin/accuracy_$w not built (cmake --build $build --target accuracy_$w)" >&2; exit 1; }
done

# ---- real speed-ups ----
# $tmp/<w>.seq: every run in order, "base <thr>" or "<region>:<s> <thr>". A
# baseline runs before every two scaled runs and at the end of each round, so
# each scaled run has a baseline right before and right after it.
run_real() {
  local w=$1 configs=() r line s
  while read -r r line; do
    for s in $speedups; do configs+=("$r:$s"); done
  done < <(acc_regions "$w")
  local n=${#configs[@]} round i k cfg out scale units
  units=$(acc_field "$(acc_run "$bin/accuracy_$w")" units)
  units=$(awk -v u="$units" -v f="${WORK:-1}" 'BEGIN {u = int(u * f + 0.5); print u < 1 ? 1 : u}')
  for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i <= n; i++)); do
      if ((i % 2 == 0 || i == n)); then
        acc_wait_quiet
        out=$(acc_run "$bin/accuracy_$w" "$units") || exit 1
        echo "base $(acc_field "$out" throughput) $(acc_field "$out" foreign)" >> "$tmp/$w.seq"
      fi
      ((i < n)) || break
      k=$(( (i + round * 3) % n )); cfg=${configs[$k]}
      r=${cfg%%:*}; s=${cfg#*:}
      scale=$(awk -v s="$s" 'BEGIN {printf "%.6g", 1 - s}')
      acc_wait_quiet
      out=$(acc_run env "ANDWEORC_SCALE_$(acc_upper "$r")=$scale" "$bin/accuracy_$w" "$units") || exit 1
      echo "$cfg $(acc_field "$out" throughput) $(acc_field "$out" foreign)" >> "$tmp/$w.seq"
    done
    printf '  %s: round %d/%d done\n' "$w" $((round + 1)) "$rounds" >&2
  done
}

# Real program speed-up of config $2 of workload $1, in percent, and the
# half-width of the interquartile range of its per-round values: each scaled
# run against the mean of the baselines around it (which cancels the slow
# drifts of a shared machine), then the median over rounds. Third: the
# best-of-runs estimate, 1 - max(baseline) / max(scaled): other jobs only
# ever slow a run down, so the fastest runs are the least disturbed ones.
real_speedup() {
  awk -v cfg="$2" '
    { kind[NR] = $1; thr[NR] = $2 }
    function median_of(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function quant(a, n, q,   p, lo) { p = 1 + (n - 1) * q; lo = int(p); return (lo >= n) ? a[n] : a[lo] + (p - lo) * (a[lo + 1] - a[lo]) }
    END {
      for (j = 1; j <= NR; j++) {
        if (kind[j] != cfg) continue
        b = 0; c = 0
        for (i = j - 1; i >= 1; i--) if (kind[i] == "base") { b += thr[i]; c++; break }
        for (i = j + 1; i <= NR; i++) if (kind[i] == "base") { b += thr[i]; c++; break }
        v[++n] = 100 * (1 - (b / c) / thr[j])
      }
      for (j = 1; j <= NR; j++) {
        if (kind[j] == cfg && thr[j] > best_t) best_t = thr[j]
        if (kind[j] == "base" && thr[j] > best_b) best_b = thr[j]
      }
      m = median_of(v, n)
      printf "%.2f %.2f %.2f\n", m, (quant(v, n, 0.75) - quant(v, n, 0.25)) / 2, 100 * (1 - best_b / best_t)
    }' "$tmp/$1.seq"
}

# ---- predictions ----
# Prints the predicted program speed-up in percent, or "n/a".
predict_one() {
  local w=$1 r=$2 line=$3 s=$4 units=$5
  local file="$ACC_SRC/$w.cc"
  [[ ${FIXED_LINE_FILE:-path} == basename ]] && file="$w.cc"
  local pct; pct=$(awk -v s="$s" 'BEGIN {printf "%g", 100 * s}')
  # --end-to-end runs one experiment per run; runs with the same -o accumulate.
  local runs=${PRED_RUNS:-1} i
  [[ " ${ANDWEORC_RUN_ARGS:-} " == *" --end-to-end "* ]] && runs=${PRED_RUNS:-8}
  rm -f "$tmp/pred.json"
  for ((i = 0; i < runs; i++)); do
    # shellcheck disable=SC2086
    if ! acc_run "$tool" run -q -o "$tmp/pred.json" --fixed-line "$file:$line" \
        --fixed-speedup "$pct" ${ANDWEORC_RUN_ARGS:-} -- "$bin/accuracy_$w" "$units" > /dev/null; then
      echo "n/a"; return
    fi
  done
  acc_analysis "$tool" "$tmp/pred.json" |
    awk -F'\t' -v f="/$w.cc" -v l="$line" -v s="$s" '
      $4 == "unit" && $2 == l && ("/" $1) ~ (f "$") && $5 != "-" && $5 != "null" {
        printf "%.2f\n", 100 * $5 * s; found = 1; exit }
      END { if (!found) print "n/a" }'
}

printf '%-13s %-10s %5s %6s %9s %6s %7s %10s %8s\n' workload region line speedup "actual%" "+-" "best%" "predicted%" "|err|pt"
results=$tmp/results.tsv; : > "$results"
for w in $(acc_workloads); do
  echo "== $w" >&2
  [[ ${REAL:-on} != off ]] && run_real "$w"
  base_units=$(acc_field "$(acc_run "$bin/accuracy_$w")" units)
  if [[ ${REAL:-on} != off ]]; then
    mapfile -t b < <(awk '$1 == "base" {print $2}' "$tmp/$w.seq")
    mapfile -t f < <(awk '{print $3}' "$tmp/$w.seq")
    printf '%-13s baseline %.1f units/s (median of %d runs, MAD %s%%), foreign load %s%%\n' "$w" \
      "$(acc_median "${b[@]}")" "${#b[@]}" "$(acc_rel_mad "${b[@]}")" "$(acc_median "${f[@]}")"
  fi
  while read -r r line; do
    for s in $speedups; do
      actual=nan; spread=-; best=-
      if [[ ${REAL:-on} != off ]]; then
        read -r actual spread best < <(real_speedup "$w" "$r:$s")
      fi
      pred=n/a
      if [[ $predict == on ]]; then
        pred=$(predict_one "$w" "$r" "$line" "$s" $(( base_units * pred_work )))
      fi
      err=$(awk -v a="$actual" -v p="$pred" 'BEGIN {
        if (a == "nan" || p == "n/a") print "-"; else {d = a - p; printf "%.2f", d < 0 ? -d : d}}')
      printf '%-13s %-10s %5s %6.0f%% %9s %6s %7s %10s %8s\n' "$w" "$r" "$line" \
        "$(awk -v s="$s" 'BEGIN {print 100 * s}')" "$actual" "$spread" "$best" "$pred" "$err"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$r" "$line" "$s" "$actual" "$pred" "$err" "$spread" "$best" >> "$results"
    done
  done < <(acc_regions "$w")
done
[[ -n ${RESULTS:-} ]] && cp "$results" "$RESULTS"

echo
[[ -n $pred_note ]] && echo "$pred_note"
awk -F'\t' '
  $7 != "-" { n++; sum += $7; if ($7 > max) {max = $7; at = $1 "/" $2 " at " 100 * $4 "%"}
              if ($7 > 5) over++
              a = $5 < 0 ? -$5 : $5
              if (a < 1.5) {z++; if ($7 > 2) zbad++} }
  END {
    if (n == 0) { print "no predictions to compare: real speed-ups only"; exit }
    printf "mean |error| %.2f points over %d cases (target <= 2): %s\n", sum / n, n, (sum / n <= 2) ? "PASS" : "FAIL"
    printf "max  |error| %.2f points (%s) (target <= 5): %s\n", max, at, (max <= 5) ? "PASS" : "FAIL"
    printf "zero-effect cases (|actual| < 1.5%%) predicted within 2 points: %d of %d\n", z - zbad, z
  }' "$results"
