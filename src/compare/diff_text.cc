// diff_text.cc: the diff for a terminal (see diff_writers.h).
#include <fmt/format.h>

#include <sstream>

#include "compare/diff_format.h"
#include "compare/diff_writers.h"
#include "compare/line_label.h"
#include "report/display.h"

namespace andweorc::compare {
namespace {

using report::pad_right;

// A column `width` wide that always ends in a blank, so neighbours never
// run together.
std::string col(const std::string& s, size_t width) {
  return pad_right(report::fit_right(s, width - 1), width - 1) + " ";
}

// "demo.c:42 stage_a" for a line; "stage_a (demo.c)" for a function row
// (line 0); the line number survives any shortening (line_label.h).
std::string name_of(const report::SourcePaths& paths, const std::string& file,
                    int line, const std::string& function) {
  return line_label(paths, file, line, function, 40);
}

void line_row(const report::SourcePaths& paths, const LineChange& c,
              std::ostream& stream) {
  const auto& l = c.line();
  std::ostringstream out;
  out << "  " << col(status_words(c.status), 23)
      << col(name_of(paths, l.file, l.line, l.function), 42)
      << col(format::impact(c.base), 30) << col(format::impact(c.next), 30)
      << format::change(c.change);
  if (c.match && *c.match != MatchKind::kSource) {
    out << " [matched by " << match_kind_name(*c.match) << "]";
  }
  std::string row = out.str();
  row.erase(row.find_last_not_of(' ') + 1);
  stream << row << "\n";
}

void share_rows(const report::SourcePaths& paths,
                const std::vector<ShareChange>& rows, size_t top,
                std::ostream& out) {
  size_t shown = 0;
  for (const ShareChange& s : rows) {
    if (shown == top) break;
    ++shown;
    out << "  " << col(name_of(paths, s.file, s.line, s.function), 42)
        << col(format::shares(s), 18) << format::share_change(s) << "\n";
  }
  if (rows.size() > shown) {
    out << fmt::format("  ({} more)\n", rows.size() - shown);
  }
}

}  // namespace

bool is_notable(const LineChange& c) { return is_notable_status(c.status); }

void write_diff_text(const DiffReport& r, std::ostream& out) {
  const ProfileDiff& d = *r.diff;
  out << fmt::format("andweorc diff: {} (BASE) -> {} (NEW)\n", r.base_name,
                     r.new_name);
  if (d.base_program != d.new_program) {
    out << fmt::format("note: the programs differ: {} vs {}\n",
                       d.base_program.empty() ? "?" : d.base_program,
                       d.new_program.empty() ? "?" : d.new_program);
  }
  out << fmt::format(
      "Impact: program speed-up per unit of line speed-up, {:.0f}% interval; "
      "* = significant.\nA bottleneck is a line with a significant positive "
      "impact; changes use Welch's t-test, q = Benjamini-Hochberg over the "
      "{} tests of this diff.\n",
      100 * d.level, d.tests);
  if (d.base_runs > 1 || d.new_runs > 1) {
    out << fmt::format("Runs: {} BASE, {} NEW (merged per side).\n",
                       d.base_runs, d.new_runs);
  }
  if (d.points.empty()) out << "\nNo experiments in either profile.\n";
  for (const PointChange& p : d.points) {
    out << fmt::format(
        "\nProgress point '{}' ({}): {}\n", p.name,
        p.kind == profile::PointKind::kLatency ? "latency" : "throughput",
        format::point_speed(p));
    out << "  " << col("status", 23) << col("line", 42)
        << col("impact BASE", 30) << col("impact NEW", 30) << "change\n";
    size_t others = 0, hidden = 0;
    for (const LineChange& c : p.lines) {
      if (!is_notable(c) && others++ >= r.top) {
        ++hidden;
        continue;
      }
      line_row(d.paths, c, out);
    }
    if (hidden) out << fmt::format("  ({} more lines)\n", hidden);
  }
  out << "\nSample share, lines (largest changes):\n";
  share_rows(d.paths, d.lines, r.top, out);
  out << "\nSample share, functions (largest changes):\n";
  share_rows(d.paths, d.functions, r.top, out);
  if (!r.rules.empty()) {
    std::string names;
    for (const FailRule& rule : r.rules) {
      names += (names.empty() ? "" : ", ") + rule.text;
    }
    if (r.findings.empty()) {
      out << fmt::format("\nNo regression (--fail-on {}).\n", names);
    } else {
      out << fmt::format("\nREGRESSION (--fail-on {}):\n", names);
      for (const Finding& f : r.findings) {
        out << fmt::format("  {}: {}\n", f.rule, f.reason);
      }
    }
  }
}

}  // namespace andweorc::compare
