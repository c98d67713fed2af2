#!/usr/bin/env bash
# nginx with worker processes (issue 15: a real multi-process program),
# built from Debian's source outside the repository, driven on loopback by
# http_load.c. The progress point is a dynamic probe on the request
# finaliser (`--progress request=ngx_http_free_request`, docs/probes.md):
# nginx is not patched.
#
#   bash bench/real/nginx.sh build                 build nginx and http_load
#   bash bench/real/nginx.sh native SECONDS        throughput without profiling
#   bash bench/real/nginx.sh profile SECONDS OUT [andweorc run options...]
#   bash bench/real/nginx.sh profile-tree SECONDS OUT [options...]
#                                                  the same with http_load
#                                                  inside the profiled tree
#   bash bench/real/nginx.sh overhead ROUNDS SECONDS
#                                                  native, sampling only and
#                                                  every experiment at 0%,
#                                                  interleaved; prints the
#                                                  ratios of medians
#
# The master forks WORKERS (default 2; 1 for profile-tree, below) workers;
# CONNS (default 8) keep-alive
# connections ask for the 615-byte index page. Prints http_load's line
# (requests=, seconds=, throughput=). Needs `andweorc` (ANDWEORC, default
# build/bin/andweorc) for `profile`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
REAL_DIR=${ANDWEORC_REAL_DIR:-/var/tmp/andweorc-real}
src="$REAL_DIR/src/nginx"
dir="$REAL_DIR/build/nginx"
load="$REAL_DIR/build/http_load"
ANDWEORC=${ANDWEORC:-$repo/build/bin/andweorc}
PORT=${PORT:-18080}
# profile-tree runs http_load beside nginx on the machine's cores: with 2
# workers on 2 cores the 8 connections split between the workers as the
# kernel hands them out, differently in every run (all on one worker: its
# ngx_writev 0.41 [0.37, 0.46]; 40k/26k samples between the two: 0.15
# [0.01, 0.28], not significant; 2026-11-27), so two runs profile two
# different programs. One worker keeps the tree's shape (master, worker,
# load generator) and the run-to-run comparison meaningful.
if [ "${1:-}" = profile-tree ]; then WORKERS=${WORKERS:-1}; fi
WORKERS=${WORKERS:-2}
CONNS=${CONNS:-8}

build() {
  if ! ls -d "$src"/nginx-*/ >/dev/null 2>&1; then
    # A fresh machine has no deb-src lines: lib.sh adds them.
    source "$here/lib.sh"
    real_enable_deb_src
    mkdir -p "$src"
    (cd "$src" && real_apt_source nginx)
  fi
  if [ ! -x "$dir/objs/nginx" ]; then
    mkdir -p "$(dirname "$dir")"
    rm -rf "$dir" && cp -a "$(ls -d "$src"/nginx-*/ | head -1)" "$dir"
    # Only what serving a static page needs: no PCRE, no zlib.
    (cd "$dir" && ./configure --prefix="$dir/run" \
      --with-cc-opt="-g -O2 -fno-omit-frame-pointer" \
      --without-http_rewrite_module --without-http_gzip_module \
      --without-pcre >&2 && nice -n 15 make -s -j2 >&2)
  fi
  gcc -O2 -g -pthread -I"$repo/include" -o "$load" "$here/http_load.c" >&2
  echo "$dir/objs/nginx"
}

# A prefix with the config, the page and the log directories.
prepare() {
  local run="$dir/run"
  mkdir -p "$run/conf" "$run/logs" "$run/html"
  cp "$dir/html/index.html" "$run/html/"
  cp "$dir/conf/mime.types" "$run/conf/"
  cat >"$run/conf/nginx.conf" <<CONF
worker_processes $WORKERS;
daemon off;
master_process on;
error_log logs/error.log warn;
pid logs/nginx.pid;
events { worker_connections 512; }
http {
  include mime.types;
  access_log off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$PORT;
    location / { root html; }
  }
}
CONF
  echo "$run"
}

wait_listening() {
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/" && return 0
    sleep 0.1
  done
  echo "nginx did not start listening on $PORT" >&2
  return 1
}

# serve SECONDS CMD...: starts CMD (nginx, perhaps under andweorc), loads
# it for SECONDS, then stops the master gracefully (SIGQUIT) and waits.
serve() {
  local seconds=$1 run
  shift
  run=$(prepare)
  "$@" &
  local pid=$!
  wait_listening
  "$load" "$PORT" / "$seconds" "$CONNS"
  kill -QUIT "$(cat "$run/logs/nginx.pid")"
  wait "$pid"
}

cmd=${1:?usage: nginx.sh build|native SECONDS|profile SECONDS OUT [options]}
case "$cmd" in
  build) build ;;
  native)
    nginx=$(build | tail -1)
    serve "${2:?seconds}" "$nginx" -p "$dir/run"
    ;;
  profile)
    nginx=$(build | tail -1)
    seconds=${2:?seconds}
    out=${3:?output profile}
    shift 3
    serve "$seconds" "$ANDWEORC" run -q -o "$out" \
      --progress request=ngx_http_free_request "$@" -- "$nginx" -p "$dir/run"
    ;;
  profile-tree)
    # nginx and its load generator as one process tree (a shell starts
    # both): their loopback connections carry delays both ways, and the
    # experiments select lines of either (issue 15's client + server).
    # http_load retries its connects until nginx listens. Two progress
    # points with the same count: http_load's own "request" (andweorc.h)
    # and "served", the request finaliser in nginx (a probe in a program
    # the shell starts, named by its path).
    nginx=$(build | tail -1)
    seconds=${2:?seconds}
    out=${3:?output profile}
    shift 3
    run=$(prepare)
    "$ANDWEORC" run -q -o "$out" \
      --progress "served=$nginx:ngx_http_free_request" "$@" \
      -- sh -c '"$1" -p "$2" & n=$!; "$3" "$4" / "$5" "$6"; kill -QUIT $n; wait $n' \
      sh "$nginx" "$run" "$load" "$PORT" "$seconds" "$CONNS"
    ;;
  overhead)
    # Issue 15's overhead: ROUNDS rounds of the three configurations, the
    # order rotated every round so that none always runs first after a
    # quiet spell. Requests/s of each run, then each configuration's median
    # and its ratio to native's median (native alone moves by +-8% between
    # rounds on a shared 2-core VM: read the spread before the ratio).
    nginx=$(build | tail -1)
    rounds=${2:?rounds}
    seconds=${3:?seconds}
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    configs=(native noexp exp0)
    for r in $(seq "$rounds"); do
      for i in 0 1 2; do
        c=${configs[$(((i + r) % 3))]}
        case "$c" in
          native) line=$(serve "$seconds" "$nginx" -p "$dir/run") ;;
          noexp) line=$(serve "$seconds" "$ANDWEORC" run -q -o "$tmp/p.json" \
                   --no-experiments -- "$nginx" -p "$dir/run") ;;
          exp0) line=$(serve "$seconds" "$ANDWEORC" run -q -o "$tmp/p.json" \
                  --progress request=ngx_http_free_request --fixed-speedup 0 \
                  -- "$nginx" -p "$dir/run") ;;
        esac
        rate=$(sed -n 's/.*throughput=\([0-9.]*\).*/\1/p' <<<"$line")
        echo "round $r $c ${rate:-?}" | tee -a "$tmp/rates"
      done
    done
    python3 - "$tmp/rates" <<'PY'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    _, _, c, v = line.split()
    if v != "?":
        rates.setdefault(c, []).append(float(v))
native = statistics.median(rates.get("native", [0])) or float("nan")
for c in ("native", "noexp", "exp0"):
    v = rates.get(c, [])
    if not v:
        continue
    m = statistics.median(v)
    print(f"{c:7s} median {m:9.1f} req/s  runs {' '.join(f'{x:.0f}' for x in v)}"
          f"  ratio to native {m / native:.3f}")
PY
    ;;
  *) echo "unknown command: $cmd" >&2; exit 2 ;;
esac
