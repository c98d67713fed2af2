#!/usr/bin/env bash
# Installs everything andweorc needs to build and test on Debian 12 (as root).
set -euo pipefail
packages=(
  build-essential cmake pkg-config git
  ninja-build ccache   # faster builds and rebuilds (scripts/build.sh)
  libdw-dev libelf-dev elfutils zlib1g-dev
  libcapstone-dev   # x86 decoding for in-process probe patches (src/probes)
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libprotobuf-dev protobuf-compiler   # pprof export (profile.proto)
  coz-profiler   # coz.h, for the Coz compatibility tests
  binutils       # strip, readelf
  clang-format   # style gate in scripts/test.sh
  chromium       # the HTML report's browser test (tests/browser)
  libcpp-httplib-dev   # `run --live`: the local web page (src/live)
  clang libclang-rt-14-dev   # libFuzzer for fuzz/ (ANDWEORC_BUILD_FUZZERS=ON)
)
# Node.js and npm fetch uPlot (embedded into the HTML report at build time)
# and playwright-core (drives chromium in the browser test). A Node already
# on the machine (e.g. NodeSource's nodejs, which bundles npm and conflicts
# with Debian's npm package) is kept.
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
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

# The npm packages pinned by web/package-lock.json, reinstalled only when the
# lockfile changed since the last install (a copy is kept in node_modules).
web=$(cd "$(dirname "$0")/../web" && pwd)
stamp="$web/node_modules/.andweorc-package-lock.json"
if ! cmp -s "$web/package-lock.json" "$stamp"; then
  echo "Installing npm packages into web/node_modules"
  npm ci --prefix "$web" --no-audit --no-fund --loglevel=error
  cp "$web/package-lock.json" "$stamp"
fi
