#!/usr/bin/env bash
# slack_accuracy.sh: the known-answer suite's predictions with the runtime as
# it is (the program keeps its own timer slack) against the runtime's old
# behaviour (1 ns slack for every thread), emulated by preloading a shim whose
# constructor sets PR_SET_TIMERSLACK to 1 (threads inherit it, as they
# inherited the old runtime's setting). Issue 18's "accuracy unchanged".
#
#   bash bench/fidelity/slack_accuracy.sh BUILD OUT_DIR [PASSES]
# Environment: WORKLOADS (default: the suite's own list).
# Per workload and pass the two modes run back to back, the order swapped
# every pass, so load drifts hit both. Predictions only (REAL=off): join the
# TSVs with a run of the real speed-ups (RESULTS= of run_accuracy.sh) by
# (workload, region, speed-up).
set -euo pipefail
build=${1:?usage: slack_accuracy.sh BUILD OUT_DIR [PASSES]}
out=${2:?usage: slack_accuracy.sh BUILD OUT_DIR [PASSES]}
passes=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
shim="$out/slack1.so"
printf '%s\n' '#include <sys/prctl.h>' \
  '__attribute__((constructor)) static void slack1(void) { prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); }' |
  cc -shared -fPIC -x c -o "$shim" -
workloads=${WORKLOADS:-serial barrier lock spin pipeline joined timed_wait io_sleep epoll_server prefork proc_pipeline client_server}
export FIXED_LINE_FILE=basename
for ((pass = 1; pass <= passes; pass++)); do
  for w in $workloads; do
    echo "== pass $pass $w $(date -u +%T) $(uptime | sed 's/.*load/load/')"
    order="old now"; ((pass % 2 == 0)) && order="now old"
    for m in $order; do
      pre=; [[ $m == old ]] && pre=$shim
      LD_PRELOAD=$pre REAL=off WORKLOADS=$w RESULTS="$out/${m}_p${pass}_$w.tsv" \
        "$here/../accuracy/run_accuracy.sh" "$build" 3 >> "$out/$m.log" 2>&1
    done
  done
done
