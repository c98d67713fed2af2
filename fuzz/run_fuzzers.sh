#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a while.
#   fuzz/run_fuzzers.sh [SECONDS_PER_TARGET] [BUILD_DIR]
# New inputs go to $BUILD_DIR/fuzz-corpus/<target> (the checked-in seeds in
# fuzz/corpus/<target> are read, never written); crashes to
# $BUILD_DIR/fuzz-artifacts/. Each run's last status line (exec count,
# coverage) is printed at the end.
set -euo pipefail
seconds=${1:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$root/build-fuzz}
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DANDWEORC_BUILD_FUZZERS=ON \
  -DANDWEORC_BUILD_TESTS=OFF -DANDWEORC_BUILD_BENCH=OFF >/dev/null
targets=(profile_json coz_reader raw_reader)
cmake --build "$build" -j2 --target "${targets[@]/#/fuzz_}"
mkdir -p "$build/fuzz-artifacts"
for t in "${targets[@]}"; do
  mkdir -p "$build/fuzz-corpus/$t"
  echo "== fuzz_$t for ${seconds}s"
  nice "$build/bin/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
    -timeout=10 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/fuzz-artifacts/$t-" \
    "$build/fuzz-corpus/$t" "$root/fuzz/corpus/$t" 2>"$build/fuzz-$t.log" || {
    echo "fuzz_$t failed; see $build/fuzz-$t.log"
    tail -30 "$build/fuzz-$t.log"
    exit 1
  }
  grep -E '^#[0-9]+.*(DONE|pulse)' "$build/fuzz-$t.log" | tail -1
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$build/fuzz-$t.log"
done
