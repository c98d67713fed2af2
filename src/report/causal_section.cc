// causal_section.cc: the causal profile as text (see causal_section.h).
#include "report/causal_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "experiments/ranking.h"
#include "report/display.h"

namespace andweorc::report {
namespace {

using experiments::Analysis;
using experiments::LineImpact;
using experiments::PointSummary;
using experiments::Verdict;
using profile::PointKind;

constexpr size_t kRowIndent = 4;     // "    1. location"
constexpr size_t kDetailIndent = 8;  // "        impact ..."

struct Writer {
  const profile::Profile& p;
  const Analysis& a;
  std::ostream& out;
  const CausalOptions& o;

  std::string heading(std::string_view s) const {
    return o.heading ? o.heading(s) : std::string(s);
  }
  std::string warning(std::string_view s) const {
    return o.warning ? o.warning(s) : std::string(s);
  }
  // `items` joined by spaces, breaking lines only between items (an item
  // wider than the room is wrapped on its own), indented by `indent`.
  void pack(const std::vector<std::string>& items, size_t indent) const {
    size_t room = o.width - indent;
    std::string line;
    auto flush = [&] {
      if (!line.empty()) para(line, indent);
      line.clear();
    };
    for (const std::string& item : items) {
      if (!line.empty() &&
          display_width(line) + 1 + display_width(item) > room) {
        flush();
      }
      line += (line.empty() ? "" : " ") + item;
    }
    flush();
  }
  // `text` wrapped to the width, every line indented by `indent`.
  void para(std::string_view text, size_t indent) const {
    std::string pad(indent, ' ');
    for (const auto& l : wrap(text, o.width - indent)) {
      out << pad << fit_right(l, o.width - indent) << "\n";
    }
  }
};

// Three significant digits with a unit: 0.0002 -> "200 us".
std::string format_time(double s) {
  if (s >= 1) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3g} us", s * 1e6);
  return fmt::format("{:.3g} ns", s * 1e9);
}

std::string plural(int n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

std::string location(const CausalOptions& o, const LineImpact& m) {
  std::string f = m.file.empty() ? "?" : o.paths.display(m.file);
  return m.line > 0 ? fmt::format("{}:{}", f, m.line) : f;
}

// "location  function", shortened to `room` columns: C++ decorations of
// the function first, then its start, then the start of the path.
std::string row_title(const CausalOptions& o, const LineImpact& m,
                      size_t room) {
  std::string loc = location(o, m);
  std::string fn = m.function.empty() ? "(unknown)" : m.function;
  if (m.granularity == "function") fn += " (whole function)";
  auto width = [&] { return display_width(loc) + 2 + display_width(fn); };
  if (width() > room) fn = collapse_templates(fn);
  if (width() > room) fn = collapse_params(fn);
  if (width() > room) {
    size_t loc_w = std::min(display_width(loc), room / 2);
    loc = fit_left(loc, loc_w);
    fn = fit_left(fn, room - loc_w - 2);
  }
  return loc + "  " + fn;
}

// `v` with a sign and `decimals` decimals; never "-0.00".
std::string signed_fixed(double v, int decimals) {
  std::string text = fmt::format("{:+.{}f}", v, decimals);
  if (text.find_first_not_of("-+0.") == std::string::npos) text[0] = '+';
  return text;
}

std::string level_text(double level) {
  return fmt::format("{:g}%", level * 100);
}

// Numbers are shown only where they mean something: for lines with enough
// data. The rest get their verdict alone (the JSON output has the numbers).
bool shows_numbers(const LineImpact& m) {
  return m.fitted && (m.verdict == Verdict::kSignificant ||
                      m.verdict == Verdict::kNotSignificant ||
                      m.verdict == Verdict::kImplausible);
}

// Where the impact can stand among the lines ranked by impact (ranking.h):
// "; place 2-9 of 19 by impact". Nothing for a lone line.
std::string place_text(const LineImpact& m) {
  if (!experiments::ranked_by_impact(m) || m.places < 2) return "";
  std::string places = m.place_high > m.place_low
                           ? fmt::format("{}-{}", m.place_low, m.place_high)
                           : fmt::format("{}", m.place_low);
  return fmt::format("; place {} of {} by impact", places, m.places);
}

std::string impact_details(const Analysis& a, const LineImpact& m) {
  // Experiments that never reached the point measured nothing for it.
  std::string counts =
      m.verdict == Verdict::kNeverReached
          ? plural(m.experiments, "experiment")
          : fmt::format("{} ({} sped up)", plural(m.experiments, "experiment"),
                        m.speedup_experiments);
  if (!shows_numbers(m)) return fmt::format("{}: {}", counts, m.verdict_text);
  // An implausible line says which range the delays allowed.
  std::string bound = m.verdict == Verdict::kImplausible
                          ? fmt::format(" (delay bound {} to {})",
                                        signed_fixed(m.plausible_low, 3),
                                        signed_fixed(m.plausible_high, 3))
                          : "";
  return fmt::format("impact {} ({} CI {} to {}), R\u00b2 {:.2f}, {}: {}{}{}",
                     signed_fixed(m.slope, 2), level_text(a.level),
                     signed_fixed(m.ci_low, 2), signed_fixed(m.ci_high, 2),
                     m.r2, counts, m.verdict_text, bound, place_text(m));
}

// The predictions as items that are never split across lines.
std::vector<std::string> prediction_items(const LineImpact& m) {
  bool latency = m.kind == PointKind::kLatency;
  std::vector<std::string> items = {
      latency ? "predicted latency change if the line is faster by"
              : "predicted program speed-up if the line is faster by"};
  size_t count = std::size(kPredictionSpeedups);
  for (size_t i = 0; i < count; ++i) {
    experiments::Prediction r = experiments::predict(m, kPredictionSpeedups[i]);
    // Latency: a positive "speed-up" is a fall in latency, shown as such.
    double v = latency ? -r.value : r.value;
    double lo = latency ? -r.high : r.low;
    double hi = latency ? -r.low : r.high;
    items.push_back(
        fmt::format("{:g}%: {}% ({} to {}){}", kPredictionSpeedups[i] * 100,
                    signed_fixed(v * 100, 1), signed_fixed(lo * 100, 1),
                    signed_fixed(hi * 100, 1), i + 1 < count ? "," : ""));
  }
  return items;
}

std::string point_heading(const PointSummary& s) {
  bool tp = s.kind == PointKind::kThroughput;
  std::string head =
      fmt::format("{} ({} point)", s.name, tp ? "throughput" : "latency");
  if (s.reached == 0) return head + ": never reached during an experiment";
  if (s.baseline <= 0) {
    return head + ": no baseline yet (no experiment at 0% reached it)";
  }
  std::string base = tp ? format_time(s.baseline) + " per visit"
                        : "latency " + format_time(s.baseline);
  return fmt::format("{}: baseline {} from {} at 0%", head, base,
                     plural(s.baseline_experiments, "experiment"));
}

void write_point(const Writer& w, const PointSummary& s,
                 const std::vector<const LineImpact*>& rows) {
  w.out << "\n";
  w.para(point_heading(s), 2);
  if (s.reached == 0) return;
  size_t n = w.o.top == 0 ? rows.size() : std::min(w.o.top, rows.size());
  for (size_t i = 0; i < n; ++i) {
    const LineImpact& m = *rows[i];
    std::string rank = pad_left(fmt::format("{}.", m.rank), 3) + " ";
    size_t room = w.o.width - kRowIndent - display_width(rank);
    w.out << std::string(kRowIndent, ' ') << rank << row_title(w.o, m, room)
          << "\n";
    w.para(impact_details(w.a, m), kDetailIndent);
    if (shows_numbers(m)) w.pack(prediction_items(m), kDetailIndent);
  }
  if (n < rows.size()) {
    w.para(fmt::format("... {} (raise --top to see them)",
                       plural(static_cast<int>(rows.size() - n), "more line")),
           kRowIndent);
  }
}

}  // namespace

void write_causal(const profile::Profile& p, const Analysis& a,
                  std::ostream& out, const CausalOptions& options) {
  Writer w{p, a, out, options};
  out << "\n";
  if (p.experiments.empty()) {
    out << w.heading("Causal profile:") << " none\n";
  } else {
    out << w.heading(fmt::format(
               "Causal profile ({}):",
               plural(static_cast<int>(p.experiments.size()), "experiment")))
        << "\n";
    w.para(experiments::ranking_rule(a.min_speedup_experiments), 2);
    w.para(
        "Impact: program speed-up per unit of line speed-up (0.5: the line "
        "10% faster makes the program 5% faster; for a latency point, "
        "latency 5% lower).",
        2);
  }
  if (!a.convergence.empty()) w.para(a.convergence, 2);
  for (const std::string& note : a.notes) {
    std::vector<std::string> lines = wrap(note, options.width - 4);
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string line =
          (i == 0 ? "  ! " : "    ") + fit_right(lines[i], options.width - 4);
      out << w.warning(line) << "\n";
    }
  }
  for (const PointSummary& s : a.points) {
    std::vector<const LineImpact*> rows;
    for (const LineImpact& m : a.impacts) {
      if (m.point == s.name && m.kind == s.kind) rows.push_back(&m);
    }
    write_point(w, s, rows);
  }
}

}  // namespace andweorc::report
