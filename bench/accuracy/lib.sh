# lib.sh: shared by run_accuracy.sh, overhead.sh, time_to_answer.sh and
# time_to_stable.sh
# (sourced, bash). Plain bash + awk: no python3, no jq.

ACC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ACC_SRC="$ACC_DIR/workloads"
# Scratch directory of the calling script (which removes it on exit).
ACC_TMP=$(mktemp -d)

# Workloads with a source file, in a fixed order (override with WORKLOADS).
acc_workloads() {
  if [[ -n ${WORKLOADS:-} ]]; then printf '%s\n' $WORKLOADS; return; fi
  local f
  for f in "$ACC_SRC"/*.cc; do basename "$f" .cc; done
}

# "name line" per region of workload $1, in source order; with REGIONS set
# ("fast lock/outside"), only the regions named there (region or w/region).
acc_regions() {
  grep -n 'REGION:' "$ACC_SRC/$1.cc" | sed -E 's/^([0-9]+):.*REGION:([a-z0-9_]+).*/\2 \1/' |
    awk -v w="$1" -v sel="${REGIONS:-}" 'BEGIN {n = split(sel, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1}
      n == 0 || ($1 in want) || ((w "/" $1) in want)'
}

# The declared bottleneck of workload $1.
acc_bottleneck() {
  grep -o 'BOTTLENECK:[a-z0-9_]*' "$ACC_SRC/$1.cc" | head -1 | cut -d: -f2
}

# "REGION LINE" of workload $1's declared bottleneck ("none -" when it
# declares none).
acc_target() {
  local bn; bn=$(acc_bottleneck "$1")
  if [[ $bn == none ]]; then echo "none -"; return; fi
  echo "$bn $(acc_regions "$1" | awk -v r="$bn" '$1 == r {print $2}')"
}

acc_upper() { printf '%s' "$1" | tr a-z A-Z; }

# Median of the numbers given as arguments.
acc_median() {
  printf '%s\n' "$@" | sort -g |
    awk '{a[NR] = $1} END {if (NR == 0) print "nan"; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}

# Median absolute deviation relative to the median, in percent.
acc_rel_mad() {
  local m; m=$(acc_median "$@")
  local devs=() x
  for x in "$@"; do devs+=("$(awk -v x="$x" -v m="$m" 'BEGIN {d = x - m; print (d < 0) ? -d : d}')"); done
  awk -v d="$(acc_median "${devs[@]}")" -v m="$m" 'BEGIN {printf "%.2f", 100 * d / m}'
}

# Field $2 (units, seconds, throughput) of a workload's result line $1.
acc_field() {
  printf '%s\n' "$1" | awk -v k="$2" '{for (i = 1; i <= NF; i++) {split($i, kv, "="); if (kv[1] == k) {print kv[2]; exit}}}'
}

# CPU ticks (USER_HZ) the whole machine spent busy, from /proc/stat.
acc_busy_ticks() {
  awk '$1 == "cpu" {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat
}

# With QUIET=<pct> set: waits (at most QUIET_WAIT seconds, default 120) until
# the machine's CPUs were less than <pct> busy over half a second, so that
# measurements are not taken while other jobs hog the cores.
acc_wait_quiet() {
  [[ -n ${QUIET:-} ]] || return 0
  local deadline=$((SECONDS + ${QUIET_WAIT:-120})) b0 b1
  while ((SECONDS < deadline)); do
    b0=$(acc_busy_ticks); sleep 0.5; b1=$(acc_busy_ticks)
    if awk -v d=$((b1 - b0)) -v n="$(nproc)" -v q="$QUIET" 'BEGIN {exit !(100 * d / (50 * n) < q)}'; then
      return 0
    fi
  done
  echo "warning: the machine stayed busy for ${QUIET_WAIT:-120} s; measuring anyway" >&2
}

# Runs a command whose stdout ends with the workload's result line; prints
# that line, or fails loudly with the command's output. Appends two fields:
#   cpu=<s>      CPU time of the command (user + system, all threads)
#   foreign=<%>  CPU time the REST of the machine used meanwhile, as a share
#                of all cores: other jobs on a shared machine. When it is
#                high, multi-threaded workloads are CPU-share bound and their
#                true effects change (a region whose effect is 0 on idle cores
#                then saves CPU everyone competes for), see README.md.
# Must run in its own subshell, $(acc_run ...), for cpu= to be this command's.
acc_run() {
  local out rc t0 t1 b0 b1
  b0=$(acc_busy_ticks); t0=$(date +%s.%N)
  out=$("$@" 2>&1); rc=$?
  t1=$(date +%s.%N); b1=$(acc_busy_ticks)
  local line; line=$(printf '%s\n' "$out" | grep -E '^units=[0-9]+ seconds=[0-9.]+ throughput=[0-9.]+$' | tail -1)
  if [[ $rc -ne 0 || -z $line ]]; then
    echo "error: '$*' failed (exit $rc):" >&2
    printf '%s\n' "$out" | tail -20 >&2
    return 1
  fi
  # `times` line 2: user and system time of this subshell's waited-for
  # children. Redirected, not piped: a pipe would fork and reset them.
  local tf="$ACC_TMP/times.$BASHPID"
  times > "$tf"
  local cpu; cpu=$(awk 'NR == 2 {
    n = split($0, f, /[ms]+/); print 60 * f[1] + f[2] + 60 * f[3] + f[4] }' "$tf")
  local foreign; foreign=$(awk -v b0="$b0" -v b1="$b1" -v t0="$t0" -v t1="$t1" -v c="$cpu" -v n="$(nproc)" \
    'BEGIN {f = ((b1 - b0) / 100 - c) / ((t1 - t0) * n); if (f < 0) f = 0; printf "%.1f", 100 * f}')
  printf '%s cpu=%s foreign=%s\n' "$line" "$cpu" "$foreign"
}

# True when `andweorc run --help` lists every option given.
acc_tool_has() {
  local tool=$1 help; shift
  help=$("$tool" run --help 2>&1) || true
  local opt
  for opt in "$@"; do
    grep -q -- "$opt" <<<"$help" || return 1
  done
}

# Rows of the analysis array of a saved profile (see json_analysis.awk).
acc_analysis() {
  "$1" report "$2" --format json | awk -f "$ACC_DIR/json_analysis.awk"
}

# Seconds since the `date +%s.%N` timestamp $1, one decimal.
acc_since() {
  awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}'
}

# The report's top line for the throughput point "unit": the analysis row
# (json_analysis.awk's columns) of rank 1, else the first "unit" row. Tool
# $1, profile $2; the JSON report is left in $ACC_TMP/report.json.
acc_top_row() {
  "$1" report "$2" --format json > "$ACC_TMP/report.json"
  awk -f "$ACC_DIR/json_analysis.awk" "$ACC_TMP/report.json" | awk -F'\t' '
    $4 == "unit" && ($11 == "1" || first == "") { if (first == "" || $11 == "1") first = $0; if ($11 == "1") exit }
    END { print first }'
}

# "base.cc:LINE" (+ "*" when $3 is "true") for a row's file $1 and line $2.
acc_tag() {
  local tag; tag="$(basename "${1:-none}"):${2:--}"
  [[ ${3:-} == true ]] && tag+="*"
  printf '%s' "$tag"
}
