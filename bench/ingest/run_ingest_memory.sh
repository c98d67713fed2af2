#!/usr/bin/env bash
# run_ingest_memory.sh: peak RSS of the tool's ingest (raw file -> profile)
# for runs of growing length, streamed (as `andweorc run` does) and, up to
# IN_MEMORY_MAX minutes, the way before streaming (whole file in memory).
#
#   bench/ingest/run_ingest_memory.sh BUILD_DIR [MINUTES...]   (default 1 10 60)
#
# Needs about 60 MB of disk per minute (8 threads at 1 kHz) in $TMPDIR.
set -euo pipefail
build=${1:?usage: run_ingest_memory.sh BUILD_DIR [MINUTES...]}
shift
minutes=("$@")
[ ${#minutes[@]} -gt 0 ] || minutes=(1 10 60)
bin=$build/bin/ingest_memory
in_memory_max=${IN_MEMORY_MAX:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/andweorc-ingest-mem.XXXXXX")
trap 'rm -rf "$work"' EXIT

peak() {  # command... -> "peak_rss_MB seconds" and the command's output line
  /usr/bin/time -f '%M %e' -o "$work/time" "$@" >"$work/out"
  read -r kb secs <"$work/time"
  echo "$((kb / 1024)) $secs $(head -1 "$work/out")"
}

printf '%-8s %-10s %-10s %-16s %s\n' minutes file_MB mode peak_RSS_MB "seconds / result"
for m in "${minutes[@]}"; do
  rm -rf "$work/raw"
  "$bin" gen "$work/raw" "$m"
  mb=$(( $(stat -c %s "$work/raw/1.awr") / 1048576 ))
  read -r rss secs rest < <(peak "$bin" ingest "$work/raw")
  printf '%-8s %-10s %-10s %-16s %s s / %s\n' "$m" "$mb" streamed "$rss" "$secs" "$rest"
  if awk "BEGIN{exit !($m <= $in_memory_max)}"; then
    read -r rss secs rest < <(peak "$bin" ingest-in-memory "$work/raw")
    printf '%-8s %-10s %-10s %-16s %s s / %s\n' "$m" "$mb" in-memory "$rss" "$secs" "$rest"
  fi
done
