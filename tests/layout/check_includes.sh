#!/usr/bin/env bash
# Fails when a room of src/ includes a header of a room that src/README.md's
# layout block does not allow it to use (the room, or that one header when
# the block names "room/header.h"). Usage: check_includes.sh SRC_DIR
set -euo pipefail
src=${1:?usage: check_includes.sh SRC_DIR}
declare -A allowed
while read -r line; do
  room=${line%%:*}
  allowed[$room]=" ${line#*:} "
done < <(sed -n '/^```layout$/,/^```$/p' "$src/README.md" | sed '1d;$d')
status=0
for dir in "$src"/*/; do
  room=$(basename "$dir")
  if [ -z "${allowed[$room]+x}" ]; then
    echo "src/$room: not in the layout block of src/README.md" >&2
    status=1
    continue
  fi
  while IFS= read -r hit; do
    file=${hit%%:*}
    dep=$(sed -E 's/.*#include "([A-Za-z0-9_]+)\/.*/\1/' <<<"$hit")
    header=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$hit")
    [ "$dep" = "$room" ] && continue
    # Only includes of another room count (e.g. not "pprof/profile.pb.h").
    [ -d "$src/$dep" ] || [ "$dep" = andweorc ] || continue
    # A room, or one header of it ("runtime/perf_sample_attr.h").
    if [[ "${allowed[$room]}" != *" $dep "* && "${allowed[$room]}" != *" $header "* ]]; then
      echo "${file#"$src"/}: includes $dep/, which src/README.md does not allow $room to use" >&2
      status=1
    fi
  done < <(grep -rnE '^\s*#\s*include "[A-Za-z0-9_]+/' "$dir" || true)
done
[ $status = 0 ] && echo "layout: every include follows src/README.md"
exit $status
