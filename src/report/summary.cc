// summary.cc: the answer of a run in a few sentences (see summary.h).
#include "report/summary.h"

#include <fmt/format.h>

#include "report/display.h"

namespace andweorc::report {
namespace {

using experiments::LineImpact;

// Two decimals, never "-0.00".
std::string fixed2(double v) {
  std::string s = fmt::format("{:.2f}", v);
  return s == "-0.00" ? "0.00" : s;
}

std::string signed_pct(double v) {
  std::string s = fmt::format("{:+.1f}%", v * 100);
  return s == "-0.0%" ? "+0.0%" : s;
}

std::string regions_word(int n) { return n == 1 ? "region" : "regions"; }

}  // namespace

std::optional<Convergence> recorded_convergence(const profile::Profile& p) {
  const profile::Convergence& c = p.convergence;  // the planner's (1.3)
  if (c.state.empty()) return std::nullopt;
  std::string n = fmt::format("{} experiment{}", c.experiments,
                              c.experiments == 1 ? "" : "s");
  if (c.state == "stable")
    return Convergence{true, fmt::format("{} has led for the last {} of {}",
                                         c.leader, c.stable_for, n)};
  if (c.state == "flat")
    return Convergence{true,
                       fmt::format("no region's impact exceeds {:.2f} with 95% "
                                   "confidence after {} (a flat profile)",
                                   c.useful_impact, n)};
  return Convergence{
      false, fmt::format("after {}, {} of {} region{} still in play", n,
                         c.in_play, c.regions, c.regions == 1 ? "" : "s")};
}

Summary summarize(const experiments::Analysis& a,
                  std::optional<Convergence> convergence) {
  Summary s;
  s.convergence = std::move(convergence);
  for (const auto& pt : a.points) {
    PointAnswer ans;
    ans.point = pt.name;
    ans.kind = pt.kind;
    for (const LineImpact& m : a.impacts) {
      if (m.point != pt.name || m.kind != pt.kind) continue;
      ++ans.regions;
      ans.significant += m.significant ? 1 : 0;
      ans.fitted += m.fitted ? 1 : 0;
      if (ans.top == nullptr || m.rank < ans.top->rank) ans.top = &m;
    }
    if (ans.top) ans.at10 = experiments::predict(*ans.top, 0.10);
    s.points.push_back(std::move(ans));
  }
  return s;
}

std::string region_text(const LineImpact& m, const SourcePaths& paths,
                        size_t name_width) {
  std::string fn = m.function.empty()
                       ? "(unknown function)"
                       : short_function_name(m.function, name_width);
  std::string file = m.file.empty() ? "(unknown file)" : paths.display(m.file);
  if (m.granularity == "function") {
    return fmt::format("function {} ({})", fn, file);
  }
  return m.line > 0 ? fmt::format("{}:{} in {}", file, m.line, fn)
                    : fmt::format("{} in {}", file, fn);
}

std::vector<std::string> summary_sentences(const Summary& s,
                                           const SourcePaths& paths,
                                           size_t name_width) {
  std::vector<std::string> out;
  for (const PointAnswer& ans : s.points) {
    // The point's name only when there is more than one to tell apart.
    std::string prefix =
        s.points.size() > 1 ? fmt::format("{}: ", ans.point) : "";
    bool latency = ans.kind == profile::PointKind::kLatency;
    if (ans.top == nullptr) {
      out.push_back(prefix + "no region was tested against this point.");
      continue;
    }
    const LineImpact& m = *ans.top;
    std::string region = region_text(m, paths, name_width);
    if (!m.fitted) {
      out.push_back(fmt::format(
          "{}No region has an estimate yet ({} tested, none with enough "
          "experiments): run longer.",
          prefix, ans.regions));
      continue;
    }
    std::string impact = fmt::format("impact {} [{}, {}]", fixed2(m.slope),
                                     fixed2(m.ci_low), fixed2(m.ci_high));
    // Latency: a positive speed-up is a fall in latency, shown as one.
    std::string effect = latency ? "latency " + signed_pct(-ans.at10.value)
                                 : "program " + signed_pct(ans.at10.value);
    if (m.significant && m.slope > 0) {
      out.push_back(
          fmt::format("{}Top region: {}, {}: 10% faster there \u2192 {}.",
                      prefix, region, impact, effect));
      out.push_back(fmt::format("{} of {} {} {} significant.", ans.significant,
                                ans.regions, regions_word(ans.regions),
                                ans.significant == 1 ? "is" : "are"));
    } else if (m.significant) {
      // Ranked first yet negative: no significant region speeds anything
      // up. Predicting a "gain" from it would mislead.
      out.push_back(fmt::format(
          "{}No region shows a significant gain yet; {} of {} {} a "
          "significant negative impact (faster there, slower program), "
          "such as {}, {}: run longer for a clear answer.",
          prefix, ans.significant, ans.regions,
          ans.significant == 1 ? "has" : "have", region, impact));
    } else {
      out.push_back(fmt::format(
          "{}No region is significant yet (0 of {}); the best estimate so "
          "far: {}, {}: run longer for a clear answer.",
          prefix, ans.regions, region, impact));
    }
  }
  if (s.convergence) {
    std::string head = s.convergence->converged
                           ? "The answer had converged"
                           : "The answer had not converged yet";
    out.push_back(s.convergence->detail.empty()
                      ? head + "."
                      : fmt::format("{}: {}.", head, s.convergence->detail));
  }
  return out;
}

}  // namespace andweorc::report
