#!/usr/bin/env bash
# Set up, build, and profile the bundled example; prints the report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh -DANDWEORC_BUILD_TESTS=OFF -DANDWEORC_BUILD_BENCH=OFF
# ~7 s: long enough for ~30 experiments, so the causal estimates have data.
build/bin/andweorc run -o build/hot_loop.profile.json -- build/bin/hot_loop 8000
# The same profile as one self-contained page with a curve per line.
build/bin/andweorc report build/hot_loop.profile.json --format html \
  -o build/hot_loop.html
echo "HTML report: $(pwd)/build/hot_loop.html (open it in a browser)"
