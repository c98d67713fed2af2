# Shared helpers for bench/real/*: enable Debian source packages, fetch and
# unpack a source package outside the repository, common paths and flags.
# Sourced, not run. Needs root (apt-get) on Debian 12.

REAL_DIR=${ANDWEORC_REAL_DIR:-/var/tmp/andweorc-real}
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REAL_SCRIPTS="$REPO_ROOT/bench/real"
# -g for lines, frame pointers for call chains, and the andweorc header
# (progress points need no library) from this checkout.
REAL_CFLAGS="-g -O2 -fno-omit-frame-pointer -isystem $REPO_ROOT/include"

real_log() { echo "[real] $*" >&2; }

# Adds deb-src to the Debian 12 deb822 sources (or a one-line list file on
# a system without it) once, then refreshes the package lists.
real_enable_deb_src() {
  local f=/etc/apt/sources.list.d/debian.sources
  if apt-get source --print-uris -qq pigz >/dev/null 2>&1; then
    return 0
  fi
  if [ -f "$f" ] && grep -q '^Types: deb$' "$f"; then
    real_log "adding deb-src to $f"
    sed -i 's/^Types: deb$/Types: deb deb-src/' "$f"
  elif ! grep -rqs '^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    real_log "adding /etc/apt/sources.list.d/andweorc-deb-src.list"
    cat >/etc/apt/sources.list.d/andweorc-deb-src.list <<'LIST'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
LIST
  fi
  apt-get update -qq
}

# real_fetch_source PKG: build-deps, then `apt-get source` into
# $REAL_DIR/src/PKG (once). Prints the unpacked directory.
real_fetch_source() {
  local pkg=$1 dest="$REAL_DIR/src/$1"
  real_enable_deb_src
  # Tools the scripts themselves use (build-dep does not pull all of them).
  local tools=(dpkg-dev build-essential cmake patch bc jq python3) missing=() t
  for t in "${tools[@]}"; do
    dpkg-query -W -f='${Status}' "$t" 2>/dev/null | grep -q "install ok installed" || missing+=("$t")
  done
  ((${#missing[@]} == 0)) || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq "$pkg" >&2
  if ! ls -d "$dest"/*/ >/dev/null 2>&1; then
    mkdir -p "$dest"
    (cd "$dest" && real_apt_source "$pkg")
  fi
  ls -d "$dest"/*/ | head -1 | sed 's:/$::'
}

# real_apt_source PKG: `apt-get source PKG` in the current directory; when
# the newest version's files are gone from the mirror (a security update
# whose source pool moved: 404), the older versions apt knows, newest first.
real_apt_source() {
  local pkg=$1 v
  apt-get source -qq "$pkg" >&2 && return 0
  for v in $(apt-cache showsrc "$pkg" | sed -n 's/^Version: //p' | sort -rV); do
    real_log "apt-get source $pkg failed; trying $pkg=$v"
    apt-get source -qq "$pkg=$v" >&2 && return 0
  done
  return 1
}

# real_patch DIR PATCH: applies PATCH once (a stamp file remembers it).
real_patch() {
  local dir=$1 patch=$2 stamp="$1/.andweorc-$(basename "$2")"
  [ -f "$stamp" ] && return 0
  patch -d "$dir" -p1 --forward <"$patch" >&2
  touch "$stamp"
}
