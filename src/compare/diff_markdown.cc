// diff_markdown.cc: the diff as a pull-request comment (see diff_writers.h).
#include <fmt/format.h>

#include "compare/diff_format.h"
#include "compare/diff_writers.h"
#include "compare/line_label.h"
#include "report/display.h"

namespace andweorc::compare {
namespace {

// Text inside a table cell: no line breaks, no cell separators, no HTML.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      case '<':
        out += "&lt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '`':
        out += '\'';
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A code span; the content cannot end it early.
std::string code(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '`') {
      out += '\'';
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return "`" + out + "`";
}

// A function name for a table cell: whole when it fits 60 columns, else
// collapsed and cut in the middle (line_label.h); the line number has its
// own column.
std::string function_cell(const std::string& function) {
  if (function.empty()) return "";
  if (report::display_width(function) <= 60) return code(function);
  return code(report::fit_middle(short_function(function), 60));
}

// "a -> b" reads better as "a → b" in a rendered comment.
std::string arrows(std::string s) {
  for (size_t at = s.find("->"); at != std::string::npos;
       at = s.find("->", at)) {
    s.replace(at, 2, "→");
  }
  return s;
}

std::string status_cell(LineStatus s) {
  switch (s) {
    case LineStatus::kNewBottleneck:
      return "**new bottleneck**";
    case LineStatus::kVanishedBottleneck:
      return "**bottleneck gone**";
    default:
      return status_words(s);
  }
}

void share_table(const report::SourcePaths& paths,
                 const std::vector<ShareChange>& rows, size_t top, bool lines,
                 std::ostream& out) {
  out << (lines ? "| line | function | share | change |\n"
                  "|---|---|---:|---:|\n"
                : "| function | file | share | change |\n"
                  "|---|---|---:|---:|\n");
  size_t shown = 0;
  for (const ShareChange& s : rows) {
    if (shown == top) break;
    ++shown;
    if (lines) {
      out << "| " << code(format::location(paths, s.file, s.line)) << " | "
          << function_cell(s.function);
    } else {
      out << "| " << (s.function.empty() ? "?" : function_cell(s.function))
          << " | " << code(s.file.empty() ? "?" : paths.display(s.file));
    }
    out << " | " << arrows(format::shares(s)) << " | "
        << format::share_change(s) << " |\n";
  }
  if (rows.size() > shown) {
    out << fmt::format("\n{} more not shown.\n", rows.size() - shown);
  }
}

}  // namespace

void write_diff_markdown(const DiffReport& r, std::ostream& out) {
  const ProfileDiff& d = *r.diff;
  out << fmt::format("### andweorc diff: {} → {}\n\n", code(r.base_name),
                     code(r.new_name));
  if (!r.rules.empty()) {
    if (r.findings.empty()) {
      out << "**No regression** by the CI rules.\n\n";
    } else {
      out << "**Regression:**\n\n";
      for (const Finding& f : r.findings) {
        out << "- " << cell(f.reason) << " (" << code(f.rule) << ")\n";
      }
      out << "\n";
    }
  }
  if (d.points.empty()) out << "No experiments in either profile.\n\n";
  for (const PointChange& p : d.points) {
    out << fmt::format(
        "#### Progress point {} ({})\n\n{}\n\n", code(p.name),
        p.kind == profile::PointKind::kLatency ? "latency" : "throughput",
        cell(arrows(format::point_speed(p))));
    out << "| | line | function | impact BASE | impact NEW | change |\n"
           "|---|---|---|---|---|---|\n";
    size_t others = 0, hidden = 0;
    for (const LineChange& c : p.lines) {
      if (!is_notable(c) && others++ >= r.top) {
        ++hidden;
        continue;
      }
      const auto& l = c.line();
      out << "| " << status_cell(c.status) << " | "
          << code(format::location(d.paths, l.file, l.line)) << " | "
          << function_cell(l.function) << " | " << format::impact(c.base)
          << " | " << format::impact(c.next) << " | "
          << format::change(c.change) << " |\n";
    }
    if (hidden) out << fmt::format("\n{} more lines not shown.\n", hidden);
    out << "\n";
  }
  out << "<details><summary>Sample share changes</summary>\n\n";
  share_table(d.paths, d.lines, r.top, true, out);
  out << "\n";
  share_table(d.paths, d.functions, r.top, false, out);
  out << "\n</details>\n\n";
  out << fmt::format(
      "<sub>Impact: program speed-up per unit of line speed-up with its "
      "{:.0f}% interval; * = significant. A bottleneck has a significant "
      "positive impact; changes are tested with Welch's t-test; q = "
      "Benjamini-Hochberg over the {} tests of this diff ({} BASE, {} NEW "
      "run{}).</sub>\n",
      100 * d.level, d.tests, d.base_runs, d.new_runs,
      d.new_runs > 1 ? "s" : "");
}

}  // namespace andweorc::compare
