// ranked_table.cc: the text report's ranked-table layout (ranked_table.h).
#include "report/ranked_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "report/display.h"

namespace andweorc::report {
namespace {

constexpr std::string_view kIndent = "  ";

std::string fit(std::string_view s, size_t width, ColumnFit how) {
  if (display_width(s) <= width) return std::string(s);
  switch (how) {
    case ColumnFit::kKeepEnd:
      return fit_left(s, width);
    case ColumnFit::kFunction: {
      // Shorten C++ decorations first; then keep the end, which holds the
      // function's own name.
      std::string t = collapse_templates(s);
      if (display_width(t) > width) t = collapse_params(t);
      return fit_left(t, width);
    }
    default:
      return fit_right(s, width);
  }
}

}  // namespace

void write_ranked_table(std::ostream& out, size_t width, const RankedRow& head,
                        const std::vector<RankedRow>& rows, ColumnFit first_fit,
                        ColumnFit second_fit) {
  size_t samples_w = display_width("samples");
  size_t first_max = display_width(head.first);
  size_t second_max = display_width(head.second);
  for (const RankedRow& r : rows) {
    samples_w = std::max(samples_w, display_width(format_count(r.samples)));
    first_max = std::max(first_max, display_width(r.first));
    second_max = std::max(second_max, display_width(r.second));
  }
  // "  rank  share  SAMPLES  FIRST  SECOND"
  size_t fixed = 2 + 4 + 2 + 6 + 2 + samples_w + 2 + 2;
  size_t room = width > fixed + 20 ? width - fixed : 20;
  size_t first_w = first_max;
  size_t second_w = second_max;
  if (first_w + second_w > room) {
    // Both do not fit: a column narrower than half the room keeps its
    // width, the other gets the rest; otherwise they split it evenly.
    size_t half = room / 2;
    if (first_max <= half) {
      first_w = first_max;
    } else if (second_max <= half) {
      first_w = room - second_max;
    } else {
      first_w = half;
    }
    second_w = room - first_w;
  }
  auto line = [&](std::string_view rank, std::string_view share,
                  std::string_view samples, std::string_view first,
                  std::string_view second) {
    std::string text =
        fmt::format("{}{}  {}  {}  {}  {}", kIndent, pad_left(rank, 4),
                    pad_left(share, 6), pad_left(samples, samples_w),
                    pad_right(fit(first, first_w, first_fit), first_w),
                    fit(second, second_w, second_fit));
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  };
  line("rank", "share", "samples", head.first, head.second);
  for (size_t i = 0; i < rows.size(); ++i) {
    const RankedRow& r = rows[i];
    line(std::to_string(i + 1), format_share(r.share), format_count(r.samples),
         r.first, r.second);
  }
}

}  // namespace andweorc::report
