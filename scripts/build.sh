#!/usr/bin/env bash
# Configures and builds andweorc into ${BUILD_DIR:-build}. Extra args go to
# cmake's configure step; ANDWEORC_TARGETS="a b" builds only those targets.
# Ninja and ccache are used when present (scripts/install-deps.sh installs
# both): a rebuild after a small change, or CI on a machine that built
# before, then recompiles only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
# The generator of an existing build directory cannot change: keep it.
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null; then
  args+=(-G Ninja)
fi
# The tool-side and test objects are made relocatable, so that a clone at
# another path (CI clones anew each run) reuses them from the cache
# (cmake/relocatable.cmake).
if command -v ccache >/dev/null && [ "${ANDWEORC_NO_CCACHE:-0}" != 1 ]; then
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
         -DANDWEORC_RELOCATABLE_OBJECTS=ON)
else
  args+=(-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=
         -DANDWEORC_RELOCATABLE_OBJECTS=OFF)
fi
cmake -S . -B "$BUILD_DIR" "${args[@]}" "$@" >/dev/null
targets=()
for t in ${ANDWEORC_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j"$(nproc)" "${targets[@]}"
