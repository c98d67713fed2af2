#!/usr/bin/env bash
# Real-program validation of andweorc: for each program, time to the first
# significant region, the top-3 regions of two independent profile runs side
# by side (and whether they agree as a set), and overhead (interleaved runs,
# median of REPS: unprofiled vs every experiment at speed-up 0 vs sampling
# only).
#
#   bash bench/real/validate.sh [zstd|leveldb|memcached|all]   (default all)
#
# Environment (all optional):
#   ANDWEORC              the tool (default: build/bin/andweorc of this checkout)
#   ANDWEORC_REAL_DIR     builds and data (default /var/tmp/andweorc-real)
#   ANDWEORC_RUN_ARGS     extra `andweorc run` options for the profile runs
#                         (e.g. "--granularity function")
#   PROFILE_SECONDS       length of each profile run (default 60)
#   REPS                  overhead repetitions per configuration (default 3)
#   SKIP_PROFILES=1 / SKIP_OVERHEAD=1   do only one half
#   BUILD_PATCH           a case-study patch: measure that build instead
#   ANDWEORC_REAL_PORT    memcached's loopback port (default 21211)
# Profiles and logs go to $ANDWEORC_REAL_DIR/results/<date>/PROGRAM/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
ANDWEORC=${ANDWEORC:-$REPO_ROOT/build/bin/andweorc}
PROFILE_SECONDS=${PROFILE_SECONDS:-60}
REPS=${REPS:-3}
PORT=${ANDWEORC_REAL_PORT:-21211}
read -r -a RUN_ARGS <<<"${ANDWEORC_RUN_ARGS:-}"
STAMP=$(date -u +%Y%m%d-%H%M%S)
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC (build it: ninja -C build andweorc andweorc_runtime)" >&2; exit 2; }

load() { uptime | sed 's/.*load average: /load /'; }
now() { date +%s.%N; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# Started servers and runs are stopped on exit, whatever happens.
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done; sleep 1;
            for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# stop_after PID SECONDS: SIGTERM to PID (andweorc forwards it to the program;
# SIGINT would not do: background jobs of a script start with SIGINT ignored)
# after SECONDS unless it ended; then waits at most 60 s more.
stop_after() {
  local pid=$1 end=$(( $(date +%s) + $2 ))
  while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.5; done
  kill -TERM "$pid" 2>/dev/null
  local i; for i in $(seq 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# ---------------------------------------------------------------- programs --
# Each program has: setup_P (build, data), fixed_P MODE OUT (fixed work;
# MODE is native or andweorc-run options; prints throughput), and
# long_P PROFILE SECONDS (a profile run of SECONDS).

ZSTD_LEVEL=${ZSTD_LEVEL:-3}
ZSTD_COPIES=${ZSTD_COPIES:-8}         # 8 x 64 MiB: ~4 s on 2 idle cores
setup_zstd() {
  ZSTD=$(bash "$here/build.sh" zstd ${BUILD_PATCH:+"$BUILD_PATCH"} | tail -1) || return 1
  INPUT="$REAL_DIR/data/text-64m.txt"
  [ -f "$INPUT" ] || { mkdir -p "$REAL_DIR/data"; python3 "$here/gen_text.py" "$INPUT" 64; }
  cat "$INPUT" >/dev/null    # into the page cache
}
zstd_cmd() { local n=$1 i; echo "$ZSTD" -T2 -"$ZSTD_LEVEL" -q -c; for ((i = 0; i < n; i++)); do echo "$INPUT"; done; }
fixed_zstd() {   # prints MB/s of input compressed
  local mode=$1 out=$2 t0 t1 secs
  mapfile -t cmd < <(zstd_cmd "$ZSTD_COPIES")
  if [ "$mode" = native ]; then
    t0=$(now); "${cmd[@]}" >/dev/null; t1=$(now)
    secs=$(echo "$t1 - $t0" | bc -l)
  else
    "$ANDWEORC" run -q -o "$out" $mode -- "${cmd[@]}" >/dev/null
    secs=$(python3 "$here/analyze.py" field "$out" run.duration_s)
  fi
  echo "$ZSTD_COPIES * 64 / $secs" | bc -l
}
long_zstd() {
  mapfile -t cmd < <(zstd_cmd 4000)
  "$ANDWEORC" run -q -o "$1" "${RUN_ARGS[@]}" -- "${cmd[@]}" >/dev/null &
  local pid=$!; PIDS+=("$pid"); stop_after "$pid" "$2"
}

LEVELDB_NUM=${LEVELDB_NUM:-1000000}   # rows per thread for the overhead runs
setup_leveldb() {
  DB_BENCH=$(bash "$here/build.sh" leveldb ${BUILD_PATCH:+"$BUILD_PATCH"} | tail -1) || return 1
  DB_DIR="$REAL_DIR/data/leveldb-db"
}
leveldb_cmd() { echo "$DB_BENCH" --benchmarks=fillrandom --threads=2 --num="$1" --value_size=100 --db="$DB_DIR"; }
fixed_leveldb() {   # prints rows inserted per second (db_bench's own timing)
  local mode=$1 out=$2 log
  log=$(mktemp)
  if [ "$mode" = native ]; then $(leveldb_cmd "$LEVELDB_NUM") >"$log" 2>&1
  else "$ANDWEORC" run -q -o "$out" $mode -- $(leveldb_cmd "$LEVELDB_NUM") >"$log" 2>&1; fi
  awk '/^fillrandom/ {print 1e6 / $3}' "$log"; rm -f "$log"
}
long_leveldb() {
  "$ANDWEORC" run -q -o "$1" "${RUN_ARGS[@]}" -- $(leveldb_cmd 100000000) >/dev/null 2>&1 &
  local pid=$!; PIDS+=("$pid"); stop_after "$pid" "$2"
  rm -rf "$DB_DIR"
}

MC_SECONDS=${MC_SECONDS:-10}
setup_memcached() {
  MEMCACHED=$(bash "$here/build.sh" memcached ${BUILD_PATCH:+"$BUILD_PATCH"} | tail -1) || return 1
  MC_LOAD="$REAL_DIR/build/mc_load"
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
    echo "port $PORT is in use: set ANDWEORC_REAL_PORT" >&2; return 1
  fi
}
memcached_cmd() { echo "$MEMCACHED" -t 2 -l 127.0.0.1 -p "$PORT" -U 0 -m 256 -c 256 -u root; }
wait_port() {   # up to 60 s for the server to listen
  local i; for i in $(seq 240); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0; sleep 0.25; done
  echo "server did not listen on $PORT" >&2; return 1
}
# serve MODE OUT SECONDS: a server (native or under andweorc run MODE) and
# mc_load for SECONDS; prints requests per second; stops the server.
serve() {
  local mode=$1 out=$2 secs=$3 pid
  if [ "$mode" = native ]; then $(memcached_cmd) & pid=$!
  else "$ANDWEORC" run -q -o "$out" $mode -- $(memcached_cmd) & pid=$!; fi
  PIDS+=("$pid")
  wait_port || { kill -KILL "$pid"; return 1; }
  "$MC_LOAD" -p "$PORT" -t 2 -d 16 -s "$secs" -n 1000000000 | awk '{print $6}'
  stop_after "$pid" 0
}
fixed_memcached() { serve "$1" "$2" "$MC_SECONDS"; }
long_memcached() { serve "${RUN_ARGS[*]:-}" "$1" "$2" >/dev/null; }

# ------------------------------------------------------------- measurement --
validate() {
  local prog=$1 dir="$REAL_DIR/results/$STAMP/$1"
  mkdir -p "$dir"
  echo "== $prog ($(date -u +%H:%M:%S) UTC, $(load))"
  "setup_$prog" >"$dir/setup.log" 2>&1 || { echo "setup failed, see $dir/setup.log"; return 1; }

  if [ "${SKIP_PROFILES:-0}" != 1 ]; then
    local r
    for r in 1 2; do
      local l0; l0=$(load)
      "long_$prog" "$dir/run$r.json" "$PROFILE_SECONDS"
      "$ANDWEORC" report "$dir/run$r.json" --format json >"$dir/run$r.report.json" 2>"$dir/run$r.err" ||
        { echo "run $r: no profile (see $dir/run$r.err)"; continue; }
      echo "-- run $r: ${PROFILE_SECONDS}s, experiment time $(python3 "$here/analyze.py" experiment-time "$dir/run$r.json") s," \
        "experiments $(jq '.experiments | length' "$dir/run$r.json"), significant lines" \
        "$(python3 "$here/analyze.py" significant "$dir/run$r.report.json"); before: $l0; after: $(load)"
      # Time to the first significant region: the analysis of the first
      # T seconds of experiments, T = 5, 10, ...
      local t first=none
      for ((t = 5; t <= PROFILE_SECONDS; t += 5)); do
        python3 "$here/analyze.py" truncate "$dir/run$r.json" "$t" "$dir/cut.json"
        "$ANDWEORC" report "$dir/cut.json" --format json >"$dir/cut.report.json" 2>/dev/null || continue
        if [ "$(python3 "$here/analyze.py" significant "$dir/cut.report.json")" -gt 0 ]; then first="${t}s"; break; fi
      done
      rm -f "$dir/cut.json" "$dir/cut.report.json"
      echo "   first significant region after: $first of experiment time"
      python3 "$here/analyze.py" top "$dir/run$r.report.json" 3 >"$dir/top$r.txt"
      sed 's/^/   /' "$dir/top$r.txt"
    done
    if [ -s "$dir/top1.txt" ] && [ -s "$dir/top2.txt" ]; then
      if diff <(cut -f1 "$dir/top1.txt" | sort) <(cut -f1 "$dir/top2.txt" | sort) >/dev/null; then
        echo "-- top 3 agree as a set: yes"
      else
        echo "-- top 3 agree as a set: no (common: $(comm -12 <(cut -f1 "$dir/top1.txt" | sort) <(cut -f1 "$dir/top2.txt" | sort) | tr '\n' ' '))"
      fi
    fi
  fi

  if [ "${SKIP_OVERHEAD:-0}" != 1 ]; then
    local native=() fixed0=() noexp=() i x
    for ((i = 1; i <= REPS; i++)); do
      x=$("fixed_$prog" native "$dir/o.json"); native+=("$x")
      x=$("fixed_$prog" "--fixed-speedup 0" "$dir/o.json"); fixed0+=("$x")
      x=$("fixed_$prog" "--no-experiments" "$dir/o.json"); noexp+=("$x")
      echo "   rep $i: native $(printf %.1f "${native[-1]:-0}")  speedup-0 $(printf %.1f "${fixed0[-1]:-0}")" \
        " no-experiments $(printf %.1f "${noexp[-1]:-0}")  ($(load))"
    done
    rm -f "$dir/o.json"
    local mn mf me
    mn=$(median "${native[@]}"); mf=$(median "${fixed0[@]}"); me=$(median "${noexp[@]}")
    printf -- "-- overhead (median of %d, throughput lost): every experiment at speed-up 0: %.1f%%, --no-experiments: %.1f%% (native median %.1f)\n" \
      "$REPS" "$(echo "100 * (1 - $mf / $mn)" | bc -l)" "$(echo "100 * (1 - $me / $mn)" | bc -l)" "$mn"
  fi
  echo "   (profiles and logs: $dir)"
}

progs=("${1:-all}")
[ "${progs[0]}" = all ] && progs=(zstd leveldb memcached)
for p in "${progs[@]}"; do
  case "$p" in zstd | leveldb | memcached) validate "$p" ;;
    *) echo "unknown program: $p (zstd, leveldb, memcached, all)" >&2; exit 2 ;; esac
done
