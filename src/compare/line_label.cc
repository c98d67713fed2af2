// line_label.cc: see line_label.h.
#include "compare/line_label.h"

#include <fmt/format.h>

#include "compare/line_matching.h"
#include "report/display.h"

namespace andweorc::compare {
namespace {

// Byte offset of the code point `n` columns into `s` (or s.size()).
size_t offset_of(std::string_view s, size_t n) {
  size_t i = 0;
  for (size_t seen = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (seen++ == n) return i;
  }
  return s.size();
}

}  // namespace

std::string elide_middle(std::string_view s, size_t width) {
  size_t w = report::display_width(s);
  if (w <= width) return std::string(s);
  if (width < 5) return std::string(s.substr(0, offset_of(s, width)));
  // Keep more of the end: a function's own name is there.
  size_t keep = width - 3;
  size_t head = keep / 2 - (keep % 2 == 0 ? 1 : 0);
  if (head == 0) head = 1;
  size_t tail = keep - head;
  std::string out(s.substr(0, offset_of(s, head)));
  out += "...";
  out += s.substr(offset_of(s, w - tail));
  return out;
}

std::string short_function(const std::string& function) {
  return report::collapse_params(report::collapse_templates(function));
}

std::string line_label(const std::string& file, int line,
                       const std::string& function, size_t width) {
  std::string base = file.empty() ? "?" : file_basename(file);
  std::string fn = function.empty() ? "" : short_function(function);
  if (line == 0) {
    if (fn.empty()) return report::fit_left(base, width);
    std::string tail = " (" + base + ")";
    size_t tw = report::display_width(tail);
    if (tw + 8 > width) return elide_middle(fn + tail, width);
    return elide_middle(fn, width - tw) + tail;
  }
  std::string loc = fmt::format("{}:{}", base, line);
  size_t lw = report::display_width(loc);
  if (lw > width) {
    // Even the location is too long: cut the file name's start, never the
    // line number.
    return report::fit_left(loc, width);
  }
  if (fn.empty() || lw + 1 + 5 > width) return loc;
  return loc + " " + elide_middle(fn, width - lw - 1);
}

}  // namespace andweorc::compare
