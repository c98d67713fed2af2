# summarize.sh: the profile half of validate.sh, shared with reanalyze.sh:
# for one run, the significant count, the time to the first significant
# region and the top 3; for two runs, whether their top 3 agree as a set,
# and whether their significant regions do (a top 3 that holds regions
# that are not significant is ordered by noise: the second comparison is
# the one a user's answer depends on).
# Sourced, not run; needs ANDWEORC and `here` (this directory).

# summarize_run DIR R: reads DIR/runR.json, writes DIR/runR.report.json and
# DIR/topR.txt, prints the run's lines (without the load).
summarize_run() {
  local dir=$1 r=$2
  "$ANDWEORC" report "$dir/run$r.json" --format json >"$dir/run$r.report.json" 2>"$dir/run$r.err" ||
    { echo "run $r: no profile (see $dir/run$r.err)"; return 1; }
  echo "-- run $r: experiment time $(python3 "$here/analyze.py" experiment-time "$dir/run$r.json") s," \
    "experiments $(jq '.experiments | length' "$dir/run$r.json"), significant regions" \
    "$(python3 "$here/analyze.py" significant "$dir/run$r.report.json")"
  # Time to the first significant region: the analysis of the first
  # T seconds of experiments, T = 5, 10, ...
  local t first=none total
  total=$(python3 "$here/analyze.py" experiment-time "$dir/run$r.json")
  for ((t = 5; t <= ${total%.*} + 5; t += 5)); do
    python3 "$here/analyze.py" truncate "$dir/run$r.json" "$t" "$dir/cut.json"
    "$ANDWEORC" report "$dir/cut.json" --format json >"$dir/cut.report.json" 2>/dev/null || continue
    if [ "$(python3 "$here/analyze.py" significant "$dir/cut.report.json")" -gt 0 ]; then first="${t}s"; break; fi
  done
  rm -f "$dir/cut.json" "$dir/cut.report.json"
  echo "   first significant region after: $first of experiment time"
  python3 "$here/analyze.py" top "$dir/run$r.report.json" 3 >"$dir/top$r.txt"
  sed 's/^/   /' "$dir/top$r.txt"
}

# compare_tops DIR: whether top1.txt and top2.txt hold the same regions, and
# the same functions (column 2); whether the runs' significant regions agree.
compare_tops() {
  local dir=$1 col s1 s2
  if [ -s "$dir/run1.report.json" ] && [ -s "$dir/run2.report.json" ]; then
    s1=$(python3 "$here/analyze.py" significant-set "$dir/run1.report.json")
    s2=$(python3 "$here/analyze.py" significant-set "$dir/run2.report.json")
    if [ -z "$s1$s2" ]; then
      echo "-- significant regions: none in either run"
    elif [ "$s1" = "$s2" ]; then
      echo "-- significant regions agree as a set: yes ($(echo "$s1" | tr '\n' ' '))"
    else
      echo "-- significant regions agree as a set: no (run 1: $(echo "$s1" | tr '\n' ' '); run 2: $(echo "$s2" | tr '\n' ' '))"
    fi
  fi
  [ -s "$dir/top1.txt" ] && [ -s "$dir/top2.txt" ] || return 0
  for col in 1 2; do
    local what; what=$([ $col = 1 ] && echo "regions" || echo "functions")
    if diff <(cut -f$col "$dir/top1.txt" | sort -u) <(cut -f$col "$dir/top2.txt" | sort -u) >/dev/null; then
      echo "-- top 3 $what agree as a set: yes"
    else
      local common
      common=$(comm -12 <(cut -f$col "$dir/top1.txt" | sort -u) <(cut -f$col "$dir/top2.txt" | sort -u))
      echo "-- top 3 $what agree as a set: no ($(echo "$common" | grep -c .) in common: $(echo "$common" | tr '\n' ' '))"
    fi
  done
  # The order is only as sure as the impacts are apart: whether each run's
  # top 3 can stand in the other's top 3 (the report's places).
  echo "-- top 3 within the other run's places: $(python3 "$here/analyze.py" top-within-places \
    "$dir/run1.report.json" "$dir/run2.report.json" 3)"
}
