#!/usr/bin/env bash
# Set up, build, and run the whole test suite (also under ASan/UBSan for the
# tool-side code; the runtime is never sanitized, it lives in signal handlers).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Style gate: every C/C++ file is clang-formatted (fixtures whose line layout
# matters opt out with their own .clang-format).
if command -v clang-format >/dev/null; then
  git ls-files '*.cc' '*.h' '*.c' | xargs clang-format --dry-run -Werror
fi
scripts/build.sh
(cd build && ctest --output-on-failure -j2 --timeout 600)
if [ "${ANDWEORC_SKIP_SANITIZERS:-0}" != 1 ]; then
  # -O1 -g1 (line tables): what ASan recommends, and it compiles faster
  # than -O2 -g, to keep CI under 20 minutes. Programs whose flags matter
  # (fixtures, examples, e2e programs) set their own.
  BUILD_DIR=build-asan scripts/build.sh -DANDWEORC_BUILD_BENCH=OFF \
    -DANDWEORC_SANITIZE=address,undefined \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG"
  # The causal-accuracy tests (Experiments.*, Runner.*) measure the runtime,
  # which is never sanitized; they ran above. The rest runs again here.
  (cd build-asan && ctest --output-on-failure -j2 --timeout 600 \
    -E '^(Experiments|Runner)\.')
fi
