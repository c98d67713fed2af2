#!/usr/bin/env bash
# attach_server.sh: a loopback echo server under load (bench/attach/echo.cc,
# server and client in separate processes) keeps serving while
# `andweorc attach` visits it: failed requests (target 0) and throughput
# after the detach against before (target within 5%), threads of the server
# before and after. Run without nice, on a quiet machine if possible.
#   bench/attach/attach_server.sh [BUILD_DIR] [REPEATS] [-- attach options]
# Each repeat: client runs 16 s; attach at 4 s for --duration 4s; "before"
# is 1-4 s, "during" is while the tool ran, "after" is from 1 s after the
# tool returned to the end. NO_ATTACH=1: the same run without the attach
# (sleep 4.5 s instead), to see how much before/after differ by themselves.
set -euo pipefail
build=${1:-build}
repeats=${2:-3}
shift $(( $# >= 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
extra=("$@")
echo_bin=$build/bin/attach_echo
tool=$build/bin/andweorc
[ -x "$echo_bin" ] && [ -x "$tool" ] || {
  echo "build attach_echo and andweorc_cli first (ninja -C $build attach_echo andweorc_cli)" >&2
  exit 2
}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

printf "%-3s %10s %10s %10s %7s %7s %9s %9s %8s %9s %9s %7s\n" rep before/s during/s after/s ratio failed threads0 threads1 attach_s \
  cpu_us0 cpu_us1 cpu_rat
for rep in $(seq 1 "$repeats"); do
  port=$(( 20000 + RANDOM % 20000 ))
  "$echo_bin" server "$port" 2 > "$work/server.out" &
  spid=$!
  for _ in $(seq 100); do grep -q ready "$work/server.out" 2>/dev/null && break; sleep 0.05; done
  t0=$(now_ms)
  "$echo_bin" client "$port" 32 16 250 > "$work/client.txt" &
  cpid=$!
  # The server's CPU (clock ticks) every 250 ms, from the client's start.
  ( while kill -0 "$cpid" 2>/dev/null; do
      echo "$(( $(now_ms) - t0 )) $(awk '{print $14 + $15}' /proc/$spid/stat)"
      sleep 0.25
    done ) > "$work/cpu.txt" &
  mon=$!
  sleep 4
  threads0=$(ls /proc/$spid/task | wc -l)
  a0=$(now_ms)
  if [ "${NO_ATTACH:-0}" = 1 ]; then
    sleep 4.5
  else
    "$tool" attach "$spid" --duration 4s -q -o "$work/p.json" "${extra[@]}" \
      2> "$work/attach.err" || { echo "attach failed:"; cat "$work/attach.err"; }
  fi
  a1=$(now_ms)
  threads1=$(ls /proc/$spid/task | wc -l)
  wait $cpid
  wait $mon 2>/dev/null || true
  kill $spid; wait $spid 2>/dev/null || true
  from=$(( a1 - t0 + 1000 ))
  tick=$(getconf CLK_TCK)
  awk -v from="$from" -v d0="$(( a0 - t0 ))" -v d1="$(( a1 - t0 ))" -v rep="$rep" -v th0="$threads0" -v th1="$threads1" \
      -v att="$(( a1 - a0 ))" -v tick="$tick" '
    # cpu.txt: the server CPU ticks at times (ms); each window spans the
    # samples nearest inside it, and its requests are counted over the same
    # span.
    FILENAME ~ /cpu.txt$/ { ct[++nc] = $1; cv[nc] = $2; next }
    { t[++n] = $1; r[n] = $2; failed += $3 }
    $1 > 1000 && $1 <= 4000 { before += $2; nb++ }
    $1 > d0 + 250 && $1 <= d1 { during += $2; nd++ }
    $1 > from { after += $2; na++ }
    function first_at(x,  i) { for (i = 1; i <= nc; i++) if (ct[i] >= x) return i; return nc }
    function last_at(x,  i) { for (i = nc; i >= 1; i--) if (ct[i] <= x) return i; return 1 }
    function reqs(lo, hi,  i, s) { s = 0; for (i = 1; i <= n; i++) if (t[i] > lo && t[i] <= hi) s += r[i]; return s }
    function cpu_us(lo, hi,  a, b) {
      a = first_at(lo); b = last_at(hi)
      return b > a ? (cv[b] - cv[a]) * 1e6 / tick / reqs(ct[a], ct[b]) : 0
    }
    END {
      b = before / (nb * 0.25); a = after / (na * 0.25); d = nd ? during / (nd * 0.25) : 0
      c0 = cpu_us(1000, 4000); c1 = cpu_us(from, t[n])
      printf "%-3s %10.0f %10.0f %10.0f %7.3f %7d %9d %9d %8.2f %9.2f %9.2f %7.3f\n", rep, b, d, a, a / b, failed, th0, th1, att / 1000, \
        c0, c1, (c0 > 0 ? c1 / c0 : 0)
    }' "$work/cpu.txt" "$work/client.txt"
done
