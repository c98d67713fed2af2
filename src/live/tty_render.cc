// tty_render.cc: see tty_render.h.
#include "live/tty_render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "experiments/convergence_summary.h"

namespace andweorc::live {
namespace {

// Columns of UTF-8 text: every byte but continuation bytes (10xxxxxx).
size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// At most `width` columns, cut at a character boundary.
std::string cut(const std::string& s, size_t width) {
  size_t n = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (n == width) break;
    ++n;
  }
  return s.substr(0, i);
}

std::string elapsed(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  return fmt::format("{}m{:02d}s", int(s) / 60, int(s) % 60);
}

// The state in the words of a glance: the planner's "running" means the
// ranking is still changing.
std::string state_words(const std::string& state, bool final) {
  if (state.empty()) return "no experiments yet";
  if (state == "running") return final ? "not stable" : "still changing";
  if (state == "flat") return "stable (flat: no line matters)";
  return state;
}

// A line's label: the file's base name and the line, or the function for a
// function-level region.
std::string label_of(const experiments::LineImpact& l) {
  if (l.granularity == "function" || l.file.empty())
    return l.function.empty() ? "[unknown]" : l.function;
  return std::filesystem::path(l.file).filename().string() + ":" +
         std::to_string(l.line);
}

// The progress point whose ranking is shown: the convergence leader's,
// else the first with a ranked line.
std::string shown_point(const LiveSnapshot& s) {
  if (!s.convergence.point.empty()) return s.convergence.point;
  for (const experiments::LineImpact& l : s.analysis.impacts) return l.point;
  return "";
}

std::string points_line(const LiveSnapshot& s) {
  if (s.points.empty()) return "points: none seen yet";
  std::string out = "points:";
  for (size_t i = 0; i < s.points.size(); ++i) {
    const PointSeries& p = s.points[i];
    std::string rate =
        p.rates.empty() ? "-" : fmt::format("{:.1f}", p.rates.back().second);
    out += fmt::format("{} {}{} {}/s ({} total)", i ? "," : "", p.name,
                       p.kind == "latency" ? " (arrivals)" : "", rate, p.total);
  }
  return out;
}

// The ranking's rows, at most `rows` of them, each within `width` columns:
// "RR M LABEL  IMPACT  [LOW, HIGH]  FUNCTION", M "*" when significant. The
// label comes before anything that may be cut, so its line number stays;
// a narrow terminal drops the interval before the label gets shorter than
// 12 columns, and the function gets what is left.
std::vector<std::string> ranking_rows(const LiveSnapshot& s,
                                      const std::string& point, size_t rows,
                                      size_t width) {
  std::vector<const experiments::LineImpact*> shown;
  size_t longest = 0;
  for (const experiments::LineImpact& l : s.analysis.impacts) {
    if (l.point != point) continue;
    if (shown.size() == rows) break;
    shown.push_back(&l);
    longest = std::max(longest, columns(label_of(l)));
  }
  const size_t kInterval = 18;  // "[+0.00, +0.00]" and room for -10.00
  bool interval = width >= 5 + 12 + 2 + 6 + 2 + kInterval;
  size_t fixed = 5 + 2 + 6 + (interval ? 2 + kInterval : 0);
  size_t label_width =
      std::max<size_t>(1, std::min(longest, width > fixed ? width - fixed : 1));
  std::vector<std::string> out;
  for (const experiments::LineImpact* l : shown) {
    // On a very narrow terminal the label may be wider than label_width:
    // the line number is kept whole and the row is cut at the end instead.
    std::string label = shorten_label(label_of(*l), label_width);
    size_t pad =
        label_width > columns(label) ? label_width - columns(label) : 0;
    std::string row =
        fmt::format("{:>2} {} {}{}  {:>6}", l->rank, l->significant ? '*' : ' ',
                    label, std::string(pad, ' '),
                    l->fitted ? fmt::format("{:+.2f}", l->slope) : "-");
    if (interval)
      row += fmt::format(
          "  {:<{}}",
          l->fitted ? fmt::format("[{:+.2f}, {:+.2f}]", l->ci_low, l->ci_high)
                    : fmt::format("{} exp.", l->experiments),
          kInterval);
    bool has_function = l->granularity != "function" && !l->file.empty() &&
                        !l->function.empty();
    if (has_function && columns(row) + 3 < width)
      row += "  " + shorten_label(l->function, width - columns(row) - 2);
    out.push_back(row);
  }
  return out;
}

}  // namespace

std::string shorten_label(const std::string& label, size_t width) {
  if (columns(label) <= width) return label;
  size_t colon = label.rfind(':');
  bool has_line = colon != std::string::npos && colon + 1 < label.size() &&
                  std::all_of(label.begin() + colon + 1, label.end(),
                              [](unsigned char c) { return std::isdigit(c); });
  if (has_line) {
    // Keep ":LINE" and as much of the end of the file name as fits.
    std::string suffix = label.substr(colon);
    if (width <= suffix.size() + 3) return label.substr(colon + 1);
    std::string file = label.substr(0, colon);
    size_t keep = width - suffix.size() - 3;
    size_t start = file.size() - keep;
    // Do not start inside a UTF-8 character.
    while (start < file.size() &&
           (static_cast<unsigned char>(file[start]) & 0xC0) == 0x80)
      ++start;
    return "..." + file.substr(start) + suffix;
  }
  if (width <= 3) return cut(label, width);
  return cut(label, width - 3) + "...";
}

std::vector<std::string> render_tty(const LiveSnapshot& s,
                                    const TtyFrameOptions& o) {
  // Never the last column (a line that fills it may wrap and break the
  // redraw) and never the last row (the cursor waits there).
  const size_t width = o.width > 1 ? o.width - 1 : 1;
  const size_t height = o.height > 1 ? o.height - 1 : 1;
  std::vector<std::string> lines;
  std::string status = fmt::format(
      "andweorc {}: {}, {} experiment{}", o.final ? "final" : "live",
      elapsed(s.time_s), s.experiments, s.experiments == 1 ? "" : "s");
  if (!o.final && s.experiments > 0)
    status += fmt::format(" ({:.1f}/s)", s.experiments_per_s);
  status += ", " + state_words(s.convergence.state, o.final);
  lines.push_back(status);
  if (!s.convergence.state.empty())
    lines.push_back(experiments::convergence_text(s.convergence));
  lines.push_back(points_line(s));
  if (!s.controls.empty()) lines.push_back("controls: " + s.controls);

  // What is left goes to the ranking first (up to o.top), then the sampling
  // profile (up to o.top_functions); each section has a blank line and a
  // heading.
  size_t left = height > lines.size() ? height - lines.size() : 0;
  std::string point = shown_point(s);
  std::vector<std::string> ranking;
  if (left >= 3) {
    size_t sample_rows = std::min<size_t>(o.top_functions, 2);
    size_t rows = left > 2 + 2 + sample_rows ? left - 2 - 2 - sample_rows : 1;
    ranking = ranking_rows(s, point, std::min(rows, o.top), width);
    lines.push_back("");
    if (point.empty()) {
      lines.push_back(s.experiments == 0 ? "causal lines: no experiments yet"
                                         : "causal lines: none ranked yet");
    } else {
      lines.push_back(fmt::format(
          "causal lines for '{}' (impact, 95% interval; * significant):",
          point));
      if (ranking.empty()) ranking.push_back("   none ranked yet");
    }
    lines.insert(lines.end(), ranking.begin(), ranking.end());
    left = height > lines.size() ? height - lines.size() : 0;
  }
  if (left >= 3) {
    lines.push_back("");
    lines.push_back(fmt::format("samples, last {:g} s ({} samples):",
                                s.samples_window_s, s.recent_samples));
    size_t rows = std::min(left - 2, o.top_functions);
    if (s.recent_functions.empty()) lines.push_back("   none yet");
    for (size_t i = 0; i < s.recent_functions.size() && i < rows; ++i) {
      const FunctionShare& f = s.recent_functions[i];
      lines.push_back(
          fmt::format("  {:5.1f}%  {}", f.share * 100,
                      shorten_label(f.function, width > 10 ? width - 10 : 1)));
    }
  }
  if (lines.size() > height) lines.resize(height);
  for (std::string& l : lines) {
    l = cut(l, width);
    l.erase(l.find_last_not_of(' ') + 1);  // no trailing blanks (a cut row)
  }
  return lines;
}

}  // namespace andweorc::live
