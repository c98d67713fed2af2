#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy's checks) on the tool-side rooms' sources
# with the build's compile_commands.json. Not part of CI (see below for the
# time it takes); run it before a review of tool-side changes.
# Usage: scripts/tidy.sh [build-dir] [room...]   (default rooms: profile
#        report compare cli experiments statistics planner ingest symbols)
# Exits 1 when clang-tidy reports any warning.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
shift || true
rooms=("$@")
((${#rooms[@]})) || rooms=(profile report compare cli experiments statistics planner ingest symbols)
[[ -f $build/compile_commands.json ]] || {
  echo "error: $build/compile_commands.json is missing: configure with CMake first" >&2; exit 2; }
files=()
for r in "${rooms[@]}"; do
  while IFS= read -r f; do files+=("$f"); done < <(find "$root/src/$r" -name '*.cc' | sort)
done
# One clang-tidy per core; the generated protobuf code is not ours.
out=$(printf '%s\n' "${files[@]}" | grep -v '/pprof/' |
  xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null || true)
warnings=$(grep -E '^/.*: (warning|error):' <<<"$out" | sort -u || true)
if [[ -n $warnings ]]; then
  printf '%s\n' "$out"
  echo "clang-tidy: $(wc -l <<<"$warnings") finding(s)" >&2
  exit 1
fi
echo "clang-tidy: ${#files[@]} files, no findings"
