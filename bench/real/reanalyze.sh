#!/usr/bin/env bash
# Re-analyses the profiles of earlier validate.sh runs with this checkout's
# tool (or $ANDWEORC): the same data under a changed analysis, e.g. the
# ranking rule before and after a change, without running the programs.
#
#   bash bench/real/reanalyze.sh RESULTS/DATE/PROGRAM ...
#   ANDWEORC=/path/to/old/andweorc bash bench/real/reanalyze.sh DIR
# Each DIR holds run1.json and run2.json; the reports and top lists are
# written to a scratch copy, DIR itself is left alone.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ANDWEORC=${ANDWEORC:-$here/../../build/bin/andweorc}
source "$here/summarize.sh"
[ -x "$ANDWEORC" ] || { echo "no andweorc at $ANDWEORC" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: reanalyze.sh RESULTS_DIR..." >&2; exit 2; }
for src in "$@"; do
  [ -f "$src/run1.json" ] || { echo "$src: no run1.json" >&2; continue; }
  work=$(mktemp -d)
  cp "$src"/run[12].json "$work/"
  echo "== $src (tool: $ANDWEORC)"
  for r in 1 2; do [ -f "$work/run$r.json" ] && summarize_run "$work" "$r"; done
  compare_tops "$work"
  rm -rf "$work"
done
