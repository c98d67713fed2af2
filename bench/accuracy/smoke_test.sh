#!/usr/bin/env bash
# Smoke test of the accuracy workloads (ctest accuracy_workloads_smoke):
# robust facts only, never timings. For each workload: a short run at scale 1
# and one with its declared bottleneck at scale 0.5 both exit 0, print exactly
# the result line, and count the units requested; its source declares 2-3
# regions, each on its own line that has code in the binary, and a
# bottleneck that is one of them.
# Usage: smoke_test.sh BIN_DIR SOURCE_DIR WORKLOAD...
set -uo pipefail
bin=$1; src=$2; shift 2
fail=0
bad() { echo "FAIL $*"; fail=1; }

# Short runs: a few percent of the default work.
units_for() {
  case $1 in
    mutex_heavy) echo 50000 ;;
    epoll_server) echo 400 ;;
    *) echo 60 ;;
  esac
}

check_run() {  # name units label [env assignments...]
  local name=$1 units=$2 label=$3; shift 3
  local out rc
  out=$(env "$@" timeout 60 "$bin/accuracy_$name" "$units" 2>&1); rc=$?
  if [[ $rc -ne 0 ]]; then bad "$name ($label): exit status $rc: $out"; return; fi
  if ! [[ $out =~ ^units=([0-9]+)\ seconds=[0-9.]+\ throughput=[0-9.]+$ ]]; then
    bad "$name ($label): unexpected output: $out"; return
  fi
  if [[ ${BASH_REMATCH[1]} != "$units" ]]; then
    bad "$name ($label): units=${BASH_REMATCH[1]}, expected $units"; return
  fi
  echo "ok   $name ($label): $out"
}

for name in "$@"; do
  file="$src/$name.cc"
  regions=$(grep -o 'REGION:[a-z0-9_]*' "$file" | cut -d: -f2)
  nreg=$(printf '%s\n' "$regions" | grep -c .)
  if ((nreg < 2 || nreg > 3)); then bad "$name: $nreg regions (want 2-3)"; fi
  if [[ $(grep -c 'REGION:' "$file") != "$nreg" ]]; then bad "$name: a line holds two REGION markers"; fi
  if [[ $(printf '%s\n' "$regions" | sort -u | grep -c .) != "$nreg" ]]; then bad "$name: duplicate region names"; fi
  bottleneck=$(grep -o 'BOTTLENECK:[a-z0-9_]*' "$file" | cut -d: -f2)
  if [[ $bottleneck == none ]]; then
    bottleneck=$(printf '%s\n' "$regions" | head -1)  # scale any region
  elif ! printf '%s\n' "$regions" | grep -qx "$bottleneck"; then
    bad "$name: BOTTLENECK '$bottleneck' is not one of its regions (or none)"; continue
  fi
  # Each REGION line has code in the binary's line table (catches a binary
  # built from other sources than the ones the harness reads lines from).
  if command -v objdump > /dev/null; then
    lines=$(objdump --dwarf=decodedline "$bin/accuracy_$name" 2>/dev/null | awk -v f="$name.cc" '$1 == f {print $2}' | sort -u)
    for ln in $(grep -n 'REGION:' "$file" | cut -d: -f1); do
      grep -qx "$ln" <<<"$lines" || bad "$name: no code at $name.cc:$ln (REGION line) in the binary"
    done
  fi
  units=$(units_for "$name")
  check_run "$name" "$units" "scale 1"
  upper=$(printf '%s' "$bottleneck" | tr a-z A-Z)
  check_run "$name" "$units" "$bottleneck at scale 0.5" "ANDWEORC_SCALE_$upper=0.5"
done

# A malformed scale is an error, not silently 1.
if env ANDWEORC_SCALE_PHASE_A=fast "$bin/accuracy_serial" 5 >/dev/null 2>&1; then
  bad "serial: ANDWEORC_SCALE_PHASE_A=fast was accepted"
fi
exit $fail
