# programs.sh: the workloads of bench/real (zstd, LevelDB, memcached), shared
# by validate.sh and case-study.sh. Sourced after lib.sh. Per program P:
#   setup_P        build (BUILD_PATCH: a case-study build) and data; sets the binary
#   fixed_P MODE OUT   fixed work, native or under `andweorc run MODE -o OUT`;
#                  prints throughput (higher is better)
#   long_P OUT SECONDS a profile run of SECONDS with $RUN_ARGS
ANDWEORC=${ANDWEORC:-$REPO_ROOT/build/bin/andweorc}
PORT=${ANDWEORC_REAL_PORT:-21211}
read -r -a RUN_ARGS <<<"${ANDWEORC_RUN_ARGS:-}"
here=${here:-$REAL_SCRIPTS}

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

# slow_loop_line FILE: the line of the known-cost loop that the *-slow
# patches add (ab_calibration.sh, known_answer.sh); empty when absent.
slow_loop_line() { grep -n 'h = h \* 2654435761U' "$1" | head -1 | cut -d: -f1; }

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
zstd_cmd() { local n=$1 i; printf "%s\n" "$ZSTD" -T2 "-$ZSTD_LEVEL" -q -c; for ((i = 0; i < n; i++)); do echo "$INPUT"; done; }
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

LEVELDB_NUM=${LEVELDB_NUM:-200000}    # rows per thread for the overhead runs
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
# mc_load for SECONDS; prints requests per second; stops the server. With
# SERVER_CPU set, prints the server's CPU time per request too (us, all its
# threads, the profiler's included): less noisy than throughput on a 2-core
# machine, where the load generator competes for the same cores.
serve() {
  local mode=$1 out=$2 secs=$3 pid server cpu0 line
  if [ "$mode" = native ]; then
    # SERVE_PRELOAD: a library preloaded into the native server.
    ${SERVE_PRELOAD:+env LD_PRELOAD=$SERVE_PRELOAD} $(memcached_cmd) & pid=$!
  else "$ANDWEORC" run -q -o "$out" $mode -- $(memcached_cmd) & pid=$!; fi
  PIDS+=("$pid")
  wait_port || { kill -KILL "$pid"; return 1; }
  server=$(pgrep -x -n memcached)
  cpu0=$(cpu_ticks "$server")
  line=$("$MC_LOAD" -p "$PORT" -t 2 -d 16 -s "$secs" -n 1000000000)
  if [ -n "${SERVER_CPU:-}" ]; then
    awk -v t0="$cpu0" -v t1="$(cpu_ticks "$server")" -v hz="$(getconf CLK_TCK)" \
      '{printf "%s %.2f\n", $6, ($2 > 0 ? (t1 - t0) / hz * 1e6 / $2 : 0)}' <<<"$line"
  else awk '{print $6}' <<<"$line"; fi
  stop_after "$pid" 0
}
# utime + stime of a process, all threads, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
fixed_memcached() { serve "$1" "$2" "$MC_SECONDS"; }
# With --until-stable or --max-time the server stops first and mc_load
# fails ("read failed"): not an error of the run, whose profile must still
# be waited for (under `|| true`, serve goes on to stop_after).
long_memcached() { serve "${RUN_ARGS[*]:-}" "$1" "$2" >/dev/null || true; }

