// diff_format.cc: see diff_format.h.
#include "compare/diff_format.h"

#include <fmt/format.h>

#include <cmath>

#include "compare/line_label.h"
#include "experiments/ranking.h"

namespace andweorc::compare::format {

std::string impact(const std::optional<experiments::LineImpact>& i) {
  if (!i) return "-";
  if (!i->fitted) return std::string(experiments::verdict_text(i->verdict));
  return fmt::format("{:.3f} [{:.3f}, {:.3f}]{}", i->slope, i->ci_low,
                     i->ci_high, i->significant ? " *" : "");
}

std::string change(const std::optional<ImpactDelta>& d) {
  if (!d) return "";
  return fmt::format("{:+.3f} (q = {:.2g}{})", d->delta, d->q,
                     d->versus_zero ? ", vs 0" : "");
}

std::string speed_test(const PointChange& p) {
  if (!p.speed_change) return "";
  const SpeedChange& c = *p.speed_change;
  std::string runs =
      fmt::format("{} vs {} run{}", p.base_speed->runs, p.new_speed->runs,
                  p.base_speed->runs + p.new_speed->runs > 2 ? "s" : "");
  return fmt::format("{:+.1f}% time [{:+.1f}%, {:+.1f}%], q = {:.2g}{}; {}",
                     c.slower_pct, c.low_pct, c.high_pct, c.q,
                     c.significant ? " *" : "", runs);
}

std::string location(const report::SourcePaths& paths, const std::string& file,
                     int line) {
  return fmt::format("{}:{}", file.empty() ? "?" : paths.display(file), line);
}

std::string seconds(double s) {
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3f} us", s * 1e6);
  return fmt::format("{:.1f} ns", s * 1e9);
}

std::string point_speed(const PointChange& p) {
  const char* per =
      p.kind == profile::PointKind::kLatency ? " latency" : " per visit";
  if (!p.in_base) return "only in NEW";
  if (!p.in_new) return "only in BASE";
  if (!p.speedup) return "no baseline experiments on both sides";
  // With a test, the figures shown are the ones it tested (each side's
  // duration-weighted geometric mean over its runs' 0% experiments), so the
  // headline and the change cannot disagree in sign; the pooled baselines
  // can when the experiments' periods are skewed (e.g. stalls in some).
  double base = p.base_baseline, next = p.new_baseline;
  double slower_pct = 100 * (next - base) / base;
  if (p.speed_change) {
    base = std::exp(p.base_speed->log_mean);
    next = std::exp(p.new_speed->log_mean);
    slower_pct = p.speed_change->slower_pct;
  }
  std::string how = slower_pct <= 0 ? fmt::format("{:.1f}% faster",
                                                  100 * (base - next) / base)
                                    : fmt::format("{:.1f}% slower", slower_pct);
  std::string out =
      fmt::format("{} -> {}{} ({})", seconds(base), seconds(next), per, how);
  if (p.speed_change) out += "; change " + speed_test(p);
  if (p.cpu_change) {
    const SpeedChange& c = *p.cpu_change;
    out += fmt::format(
        "; CPU time per visit {} -> {}: {:+.1f}% [{:+.1f}%, {:+.1f}%], q = "
        "{:.2g}{}",
        seconds(std::exp(p.base_cpu->log_mean)),
        seconds(std::exp(p.new_cpu->log_mean)), c.slower_pct, c.low_pct,
        c.high_pct, c.q, c.significant ? " *" : "");
  }
  // Regions more expensive against the rest of each run (region_cost.h):
  // only those that pass their test, at most two.
  int shown = 0;
  for (const RegionCost& r : p.regions.rose) {
    if (!r.significant || shown == 2) continue;
    out += fmt::format(
        "{} {} +{:.1f}% of the program [{:+.1f}%, {:+.1f}%], q = {:.2g} *",
        shown++ ? ";" : "; more expensive against the rest of the run:",
        r.function.empty() ? std::string("(outside scope)")
                           : short_function(r.function),
        r.implied_pct, r.low_pct, r.high_pct, r.q);
  }
  return out;
}

std::string shares(const ShareChange& s) {
  auto one = [](bool present, double v) {
    return present ? fmt::format("{:.1f}%", 100 * v) : std::string("-");
  };
  return fmt::format("{} -> {}", one(s.in_base, s.base_share),
                     one(s.in_new, s.new_share));
}

std::string share_change(const ShareChange& s) {
  double pp = 100 * s.change();
  // No "-0.0": a change too small to show is no change.
  if (std::fabs(pp) < 0.05) return "0.0 pp";
  return fmt::format("{:+.1f} pp", pp);
}

}  // namespace andweorc::compare::format
