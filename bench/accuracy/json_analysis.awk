# json_analysis.awk: prints the per-line impact estimates of
# `andweorc report --format json` as tab-separated rows, in the report's order:
#   file line function point slope ci_low ci_high r2 experiments significant rank
# (a missing field prints as "-"). A row is every object inside the top-level
# "analysis" value that has "file", "line" and "impact" (or "slope"). Its
# point is its own "point" field, else the "name" of the nearest enclosing
# object (andweorc nests lines in analysis.points[].lines[]).
# Plain POSIX awk (mawk, gawk, busybox): the harness must not need python3
# or jq. A small JSON tokenizer, line by line (JSON strings never span
# lines), so pretty and one-record-per-line layouts both work.
BEGIN {
  nf = split("file line function point slope ci_low ci_high r2 experiments significant rank", FIELDS, " ")
  depth = 0; top_key = ""
}
function unescape(s) {
  s = substr(s, 2, length(s) - 2)
  gsub(/\\"/, "\"", s); gsub(/\\\\/, "\\", s); gsub(/\t/, " ", s)
  return s
}
function value(tok) {  # a scalar value at the current depth
  if (type[depth] == "o") {
    if (top_key == "analysis" && depth >= 2) { obj[depth, cur_key[depth]] = tok; keys[depth] = keys[depth] SUBSEP cur_key[depth] }
    expect_key = 1
  }
}
function open_container(kind) {
  if (depth == 1 && type[1] == "o") top_key = cur_key[1]
  depth++; type[depth] = kind; expect_key = (kind == "o")
  keys[depth] = ""
}
function close_container(   i, n, k, row, v, d, point) {
  if (type[depth] == "o" && top_key == "analysis" && depth >= 2 &&
      ((depth, "file") in obj) && ((depth, "line") in obj) &&
      (((depth, "impact") in obj) || ((depth, "slope") in obj))) {
    if (!((depth, "slope") in obj)) obj[depth, "slope"] = obj[depth, "impact"]
    if (!((depth, "point") in obj))
      for (d = depth - 1; d >= 2; d--) if ((d, "name") in obj) { obj[depth, "point"] = obj[d, "name"]; break }
    row = ""
    for (i = 1; i <= nf; i++) {
      v = ((depth, FIELDS[i]) in obj) ? obj[depth, FIELDS[i]] : "-"
      row = row (i > 1 ? "\t" : "") v
    }
    print row
  }
  n = split(keys[depth], k, SUBSEP)
  for (i = 2; i <= n; i++) delete obj[depth, k[i]]
  delete obj[depth, "slope"]; delete obj[depth, "point"]
  keys[depth] = ""
  depth--
  if (depth >= 1 && type[depth] == "o") expect_key = 1
}
{
  s = $0
  while (length(s) > 0) {
    sub(/^[ \t\r]+/, "", s)
    if (s == "") break
    c = substr(s, 1, 1)
    if (c == "\"") {
      if (!match(s, /^"([^"\\]|\\.)*"/)) { print "json_analysis.awk: bad string at line " NR > "/dev/stderr"; exit 2 }
      tok = unescape(substr(s, 1, RLENGTH)); s = substr(s, RLENGTH + 1)
      if (depth >= 1 && type[depth] == "o" && expect_key) { cur_key[depth] = tok; expect_key = 0 }
      else value(tok)
    } else if (c == "{" || c == "[") {
      open_container(c == "{" ? "o" : "a"); s = substr(s, 2)
    } else if (c == "}" || c == "]") {
      close_container(); s = substr(s, 2)
    } else if (c == ":" || c == ",") {
      s = substr(s, 2)
    } else if (match(s, /^(-?[0-9][0-9.eE+-]*|true|false|null)/)) {
      value(substr(s, 1, RLENGTH)); s = substr(s, RLENGTH + 1)
    } else {
      print "json_analysis.awk: unexpected '" c "' at line " NR > "/dev/stderr"; exit 2
    }
  }
}
