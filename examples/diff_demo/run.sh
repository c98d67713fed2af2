#!/usr/bin/env bash
# Profiles both versions of diff_demo and diffs them.
#   examples/diff_demo/run.sh [BUILD_DIR] [OUT_DIR]
# Run from the source tree's root (so the diff can read the source lines).
# Each profile takes about 15 s.
set -euo pipefail
build=${1:-build}
out=${2:-.}
"$build/bin/andweorc" run -q -o "$out/base.json" -- "$build/bin/diff_demo_base" 9000 >&2
"$build/bin/andweorc" run -q -o "$out/new.json" -- "$build/bin/diff_demo_new" 32000 >&2
status=0
"$build/bin/andweorc" diff "$out/base.json" "$out/new.json" --format markdown \
  --fail-on new-bottleneck || status=$?
echo "diff exit status: $status (1: a --fail-on rule was broken)" >&2
