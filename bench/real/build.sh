#!/usr/bin/env bash
# Builds the real third-party programs of bench/real from Debian sources,
# outside the repository, with andweorc's progress-point patches applied.
#
#   bash bench/real/build.sh zstd|leveldb|memcached|all [EXTRA.patch ...]
#
# Run as root on Debian 12: it enables deb-src, installs the build
# dependencies and runs `apt-get source` itself (once). Each build lives in
# $ANDWEORC_REAL_DIR/build/PROGRAM (default /var/tmp/andweorc-real), or
# PROGRAM-NAME when extra patches (e.g. a case study's speed-up) are given,
# NAME being the first extra patch's file name without .patch. The path of
# the built binary is printed last on standard output.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

prog=${1:?usage: build.sh zstd|leveldb|memcached|all [EXTRA.patch ...]}
shift
extra=()
for p in "$@"; do extra+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")"); done

# prepare_tree PKG NAME: a private copy of the unpacked source with the
# progress patch and the extra patches; prints its path.
prepare_tree() {
  local pkg=$1 name=$2 src dir
  src=$(real_fetch_source "$pkg")
  dir="$REAL_DIR/build/$name"
  if [ ! -d "$dir" ]; then
    mkdir -p "$REAL_DIR/build"
    cp -a "$src" "$dir.tmp" && mv "$dir.tmp" "$dir"
  fi
  real_patch "$dir" "$REAL_SCRIPTS/$pkg-progress.patch"
  for p in "${extra[@]}"; do real_patch "$dir" "$p"; done
  echo "$dir"
}

build_name() {
  if ((${#extra[@]})); then
    local n; n=$(basename "${extra[0]}" .patch); echo "$1-${n#$1-}"
  else echo "$1"; fi
}

build_zstd() {
  local dir; dir=$(prepare_tree zstd "$(build_name zstd)")
  # programs/Makefile compiles the library sources into the zstd binary.
  CFLAGS="$REAL_CFLAGS" nice -n 15 make -s -j2 -C "$dir/programs" zstd >&2
  echo "$dir/programs/zstd"
}

build_leveldb() {
  local dir; dir=$(prepare_tree leveldb "$(build_name leveldb)")
  # C++17: the C++ part of <andweorc/andweorc.h> (labels) needs it; LevelDB's
  # own default is C++11.
  cmake -S "$dir" -B "$dir/obj" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_STANDARD=17 \
    -DCMAKE_CXX_FLAGS="$REAL_CFLAGS -DNDEBUG" -DCMAKE_C_FLAGS="$REAL_CFLAGS -DNDEBUG" \
    -DLEVELDB_BUILD_TESTS=OFF -DLEVELDB_BUILD_BENCHMARKS=ON -DLEVELDB_INSTALL=OFF >&2
  nice -n 15 make -s -j2 -C "$dir/obj" db_bench >&2
  echo "$dir/obj/db_bench"
}

build_memcached() {
  local dir; dir=$(prepare_tree memcached "$(build_name memcached)")
  # configure records CFLAGS (with this checkout's include path) in the
  # Makefile: configure again when they changed, e.g. the tree was first
  # built from another checkout that no longer exists.
  if [ ! -f "$dir/Makefile" ] || [ "$(cat "$dir/.andweorc-cflags" 2>/dev/null)" != "$REAL_CFLAGS" ]; then
    (cd "$dir" && { [ -x configure ] || autoreconf -fi >&2; } &&
      ./configure -q CFLAGS="$REAL_CFLAGS" >&2) || return 1
    printf '%s' "$REAL_CFLAGS" > "$dir/.andweorc-cflags"
  fi
  nice -n 15 make -s -j2 -C "$dir" memcached >&2
  # The load generator (loopback, bounded in requests and time).
  gcc -O2 -g -pthread -o "$REAL_DIR/build/mc_load" "$REAL_SCRIPTS/mc_load.c" >&2
  echo "$dir/memcached"
}

case "$prog" in
  zstd | leveldb | memcached) "build_$prog" ;;
  all) for p in zstd leveldb memcached; do "build_$p"; done ;;
  *) echo "unknown program: $prog (zstd, leveldb, memcached, all)" >&2; exit 2 ;;
esac
