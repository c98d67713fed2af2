// line_label.cc: see line_label.h.
#include "compare/line_label.h"

#include <fmt/format.h>

#include "report/display.h"

namespace andweorc::compare {
std::string short_function(const std::string& function) {
  return report::collapse_params(report::collapse_templates(function));
}

std::string line_label(const report::SourcePaths& paths,
                       const std::string& file, int line,
                       const std::string& function, size_t width) {
  std::string base = file.empty() ? "?" : paths.display(file);
  std::string fn = function.empty() ? "" : short_function(function);
  if (line == 0) {
    if (fn.empty()) return report::fit_left(base, width);
    std::string tail = " (" + base + ")";
    size_t tw = report::display_width(tail);
    if (tw + 8 > width) return report::fit_middle(fn + tail, width);
    return report::fit_middle(fn, width - tw) + tail;
  }
  std::string loc = fmt::format("{}:{}", base, line);
  size_t lw = report::display_width(loc);
  if (lw > width) {
    // Even the location is too long: cut the file name's start, never the
    // line number.
    return report::fit_left(loc, width);
  }
  if (fn.empty() || lw + 1 + 5 > width) return loc;
  return loc + " " + report::fit_middle(fn, width - lw - 1);
}

}  // namespace andweorc::compare
