#!/usr/bin/env bash
# calibrate.sh: collect.sh then evaluate.sh, the whole calibration of
# `andweorc diff --fail-on` (false-alarm rate on A/A pairs, power on A/B
# pairs with an injected regression). See README.md.
#
# Usage: bench/calibration/calibrate.sh [BUILD_DIR] [OUT_DIR]
# Environment: as collect.sh and evaluate.sh (PROGRAMS, ROUNDS,
#   SECONDS_OF_WORK, RULES, PAIRS, KS = runs per side to judge, "1 2 3").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-build}
out=${2:-$(mktemp -d)}
"$here/collect.sh" "$build" "$out"
# shellcheck disable=SC2086
"$here/evaluate.sh" "$build/bin/andweorc" "$out" ${KS:-1 2 3}
echo "profiles kept in $out"
