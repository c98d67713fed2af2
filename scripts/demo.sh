#!/usr/bin/env bash
# Set up, build, and profile the bundled example; prints the report.
# Builds only the tool, the runtime and the example, and leaves the build
# directory's options as they are, so scripts/test.sh run before or after
# this script tests exactly what it would have tested alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
ANDWEORC_TARGETS="andweorc_cli andweorc_runtime hot_loop" scripts/build.sh
# ~7 s: long enough for ~30 experiments, so the causal estimates have data.
build/bin/andweorc run -o build/hot_loop.profile.json -- build/bin/hot_loop 8000
# The same profile as one self-contained page with a curve per line.
build/bin/andweorc report build/hot_loop.profile.json --format html \
  -o build/hot_loop.html
echo "HTML report: $(pwd)/build/hot_loop.html (open it in a browser)"
