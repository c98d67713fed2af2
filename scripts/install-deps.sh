#!/usr/bin/env bash
# Installs everything andweorc needs to build and test on Debian 12 (as root).
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  libdw-dev libelf-dev elfutils zlib1g-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  coz-profiler   # coz.h, for the Coz compatibility tests
  binutils       # strip, readelf
  clang-format   # style gate in scripts/test.sh
  clang libclang-rt-14-dev   # libFuzzer for fuzz/ (ANDWEORC_BUILD_FUZZERS=ON)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "Installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
