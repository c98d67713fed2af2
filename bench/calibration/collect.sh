#!/usr/bin/env bash
# collect.sh: the profiles the gate calibration (evaluate.sh) judges. For
# each program, ROUNDS rounds of: two runs of the unchanged program (pool A)
# and one run per injected regression (pools B...), interleaved so that the
# machine's load drifts hit every pool alike. Each run is `andweorc run` on
# SECONDS seconds of work (units = unprofiled throughput x SECONDS).
#
# Usage: bench/calibration/collect.sh BUILD_DIR OUT_DIR
# Environment: PROGRAMS (default "serial joined epoll_server"), ROUNDS
#   (default 24), SECONDS_OF_WORK (default 3), ANDWEORC_RUN_ARGS (extra
#   `run` options).
# Regressions (a region of a known-answer workload made slower through its
# ANDWEORC_SCALE_<REGION> knob, see bench/accuracy/README.md): "name
# REGION=scale" per program, in REGRESSIONS_<program> (defaults below).
# Output: OUT_DIR/<program>/{A,B30,...}/NN.json and OUT_DIR/<program>/meta
# (the program's bottleneck line per regression, for evaluate.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../accuracy/lib.sh"
build=${1:?usage: collect.sh BUILD_DIR OUT_DIR}
out=${2:?usage: collect.sh BUILD_DIR OUT_DIR}
bin="$build/bin"; tool="$bin/andweorc"
programs=${PROGRAMS:-"serial joined epoll_server"}
rounds=${ROUNDS:-24}
secs=${SECONDS_OF_WORK:-3}
trap 'rm -rf "$ACC_TMP"' EXIT
[[ -x $tool ]] || { echo "error: $tool not built" >&2; exit 1; }

# The default regressions: the bottleneck made 30% slower; serial also gets
# phase_b made 33% slower (0.3 of the time x 0.33: a ~10% program slowdown).
default_regressions() {
  case $1 in
    serial) echo "B30 PHASE_A=1.3 B10 PHASE_B=1.33" ;;
    joined) echo "B30 SLOW=1.3" ;;
    epoll_server) echo "B30 HANDLE=1.3" ;;
    pipeline) echo "B30 PRODUCE=1.3" ;;
    *) echo "" ;;
  esac
}

for w in $programs; do
  [[ -x $bin/accuracy_$w ]] || { echo "error: $bin/accuracy_$w not built" >&2; exit 1; }
  var="REGRESSIONS_$w"
  regs=${!var:-$(default_regressions "$w")}
  read -r -a reg <<<"$regs"
  mkdir -p "$out/$w/A"
  thr=$(acc_field "$(acc_run "$bin/accuracy_$w")" throughput)
  units=$(awk -v t="$thr" -v s="$secs" 'BEGIN {u = int(t * s); print u < 1 ? 1 : u}')
  {
    echo "units $units"
    echo "seconds $secs"
    for ((k = 0; k < ${#reg[@]}; k += 2)); do
      region=${reg[k + 1]%%=*}
      line=$(acc_regions "$w" | awk -v r="$(printf '%s' "$region" | tr A-Z a-z)" '$1 == r {print $2}')
      echo "regression ${reg[k]} ${reg[k + 1]} $w.cc:$line"
      mkdir -p "$out/$w/${reg[k]}"
    done
  } > "$out/$w/meta"
  echo "$w: $units units (~${secs} s of work unprofiled) per run, $rounds rounds" >&2
  for ((r = 0; r < rounds; ++r)); do
    n=$(printf '%02d' "$r")
    for side in a b; do
      "$tool" run -q -o "$out/$w/A/$n$side.json" ${ANDWEORC_RUN_ARGS:-} -- "$bin/accuracy_$w" "$units" > /dev/null
    done
    for ((k = 0; k < ${#reg[@]}; k += 2)); do
      env "ANDWEORC_SCALE_${reg[k + 1]}" "$tool" run -q -o "$out/$w/${reg[k]}/$n.json" ${ANDWEORC_RUN_ARGS:-} \
        -- "$bin/accuracy_$w" "$units" > /dev/null
    done
    echo "  round $((r + 1))/$rounds done ($(date +%T))" >&2
  done
done
