#!/bin/sh
# run_symbol_load_bench.sh: generates and builds a C++ program with >= 100 MB
# of DWARF (-g -O1), then times loading its line tables and inline index.
# Usage: run_symbol_load_bench.sh BENCH_BINARY WORKDIR
# Env: UNITS (translation units, default 13: ~110 MB of DWARF; each takes
# ~30 s of CPU to compile), PER_UNIT (template instantiations per unit,
# default 20), JOBS (default 2), CXX (default g++).
set -eu
bench=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
units=${UNITS:-13}
per_unit=${PER_UNIT:-20}
jobs=${JOBS:-2}
cxx=${CXX:-g++}

mkdir -p "$work"
python3 "$here/gen_big_program.py" "$work/src" "$units" "$per_unit"

# This configuration's sources (a WORKDIR reused with fewer UNITS still
# holds the others).
srcs="$work/src/main.cc"
i=0
while [ "$i" -lt "$units" ]; do
  srcs="$srcs $work/src/unit$i.cc"
  i=$((i + 1))
done

# Compile in parallel; unchanged sources are not rebuilt.
start=$(date +%s)
printf '%s\n' $srcs | xargs -P "$jobs" -I{} sh -c '
  src=$1; obj=$2/$(basename "$src" .cc).o
  if [ ! -e "$obj" ] || [ "$src" -nt "$obj" ]; then
    '"$cxx"' -std=c++20 -g -O1 -c "$src" -o "$obj"
  fi' _ {} "$work"
objs=$(for src in $srcs; do echo "$work/$(basename "$src" .cc).o"; done)
# shellcheck disable=SC2086  # word splitting wanted: one object per word
$cxx -o "$work/big_program" $objs
echo "built $work/big_program in $(( $(date +%s) - start )) s"

"$bench" "$work/big_program" 3
