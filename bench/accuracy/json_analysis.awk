# json_analysis.awk: prints the "analysis" array of `andweorc report --format
# json` as tab-separated rows, one per entry, in the report's order:
#   file line function point slope ci_low ci_high r2 experiments significant rank
# (a missing field prints as "-"). Plain POSIX awk (mawk, gawk, busybox): the
# harness must not need python3 or jq. A small JSON tokenizer, line by line
# (JSON strings never span lines), so pretty and one-record-per-line layouts
# both work; values nested deeper than an entry's own fields are skipped.
BEGIN {
  nf = split("file line function point slope ci_low ci_high r2 experiments significant rank", FIELDS, " ")
  depth = 0; top_key = ""; in_entry = 0
}
function unescape(s) {
  s = substr(s, 2, length(s) - 2)
  gsub(/\\"/, "\"", s); gsub(/\\\\/, "\\", s); gsub(/\t/, " ", s)
  return s
}
function value(tok) {  # a scalar value at the current depth
  if (in_entry && depth == 3) entry[cur_key] = tok
  if (depth >= 1 && type[depth] == "o") expect_key = 1
}
function open_container(kind) {
  if (depth == 1 && type[1] == "o") top_key = cur_key
  depth++; type[depth] = kind; expect_key = (kind == "o")
  if (depth == 3 && kind == "o" && top_key == "analysis" && type[2] == "a") {
    in_entry = 1; split("", entry)
  }
}
function close_container(   i, row, v) {
  if (in_entry && depth == 3) {
    row = ""
    for (i = 1; i <= nf; i++) {
      v = (FIELDS[i] in entry) ? entry[FIELDS[i]] : "-"
      row = row (i > 1 ? "\t" : "") v
    }
    print row; in_entry = 0
  }
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
      if (depth >= 1 && type[depth] == "o" && expect_key) { cur_key = tok; expect_key = 0 }
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
