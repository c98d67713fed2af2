#!/bin/bash
# package_test.sh BUILD_DIR SOURCE_DIR: installs the build into a temporary
# prefix, builds tests/package/consumer against it with CMake
# (find_package(andweorc)) and, separately, with pkg-config, and runs what
# was built, including the installed `andweorc` tool on it.
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d /tmp/andweorc-package-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "package_test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/andweorc/andweorc.h include/andweorc/runner.h \
         include/andweorc/runner_c.h bin/andweorc; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done
libdir=$(dirname "$(find "$prefix" -name 'libandweorc.so' | head -1)")
[ -n "$libdir" ] || fail "libandweorc.so not installed"
[ -f "$libdir/cmake/andweorc/andweorcConfig.cmake" ] || fail "no andweorcConfig.cmake"
[ -f "$libdir/cmake/andweorc/andweorcConfigVersion.cmake" ] || fail "no version file"
[ -f "$libdir/pkgconfig/andweorc.pc" ] || fail "no andweorc.pc"

# CMake consumer.
cmake -S "$src/tests/package/consumer" -B "$work/cmake-build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/cmake-build" -j2 >/dev/null
out=$("$work/cmake-build/consumer" "$work/consumer.json")
echo "cmake consumer: $out"
[[ $out == *"init 1 ok 1"* ]] || fail "the Runner did not run: $out"
"$prefix/bin/andweorc" report "$work/consumer.json" >/dev/null ||
  fail "andweorc report cannot read the Runner's profile"
out=$("$work/cmake-build/consumer_c")
echo "cmake C consumer: $out"
[[ $out == "init 0 enabled 0 ok 0: profiling is off"* ]] || fail "C API: $out"
# The installed tool finds the installed runtime and profiles a header-only
# program.
"$prefix/bin/andweorc" run -q --no-experiments -o "$work/points.json" -- \
  "$work/cmake-build/consumer_points" >/dev/null ||
  fail "installed andweorc run failed"
"$prefix/bin/andweorc" report "$work/points.json" | grep -q "consumer_unit" ||
  fail "the installed tool's profile lacks the progress point"

# pkg-config consumer.
export PKG_CONFIG_PATH=$libdir/pkgconfig
flags=$(pkg-config --cflags --libs andweorc)
echo "pkg-config --cflags --libs andweorc: $flags"
# shellcheck disable=SC2086
g++ -std=c++20 -g -O1 -o "$work/pc_consumer" "$src/tests/package/consumer/main.cc" $flags
# shellcheck disable=SC2086
gcc -g -O1 -o "$work/pc_consumer_c" "$src/tests/package/consumer/consumer_c.c" $flags
out=$(LD_LIBRARY_PATH=$libdir "$work/pc_consumer")
echo "pkg-config consumer: $out"
[[ $out == *"init 1 ok 1"* ]] || fail "pkg-config build: the Runner did not run: $out"
out=$(LD_LIBRARY_PATH=$libdir "$work/pc_consumer_c")
[[ $out == "init 0 enabled 0 ok 0: profiling is off"* ]] || fail "pkg-config C API: $out"
echo "package_test: ok"
