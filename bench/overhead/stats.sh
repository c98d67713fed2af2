# stats.sh: small statistics for the overhead and fidelity scripts (sourced).
# field LINE KEY: the value of KEY=VALUE in LINE.
field() { printf '%s\n' "$1" | awk -v k="$2" '{for (i = 1; i <= NF; i++) {split($i, kv, "="); if (kv[1] == k) {print kv[2]; exit}}}'; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
relmad() {  # relative median absolute deviation, percent
  local m d=() x; m=$(median "$@")
  for x in "$@"; do d+=("$(awk -v x="$x" -v m="$m" 'BEGIN {v = x - m; print ((v < 0) ? -v : v)}')"); done
  awk -v d="$(median "${d[@]}")" -v m="$m" 'BEGIN {printf "%.1f", 100 * d / m}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.5f", a / b}'; }
