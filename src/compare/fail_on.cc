// fail_on.cc: see fail_on.h.
#include "compare/fail_on.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "compare/diff_format.h"
#include "compare/line_label.h"

namespace andweorc::compare {
namespace {

// "demo.c:42 stage_a": the line number is never shortened away.
std::string where(const report::SourcePaths& paths, const std::string& file,
                  int line, const std::string& function) {
  return line_label(paths, file, line, function, 72);
}

// "0.012 [-0.10, 0.12]", or "-" for a side without the line.
std::string impact(const std::optional<experiments::LineImpact>& i) {
  if (!i) return "absent";
  if (!i->fitted) return "not fitted";
  return fmt::format("{:.3f} [{:.3f}, {:.3f}]", i->slope, i->ci_low,
                     i->ci_high);
}

// The evidence of an impact change: both impacts and the test.
std::string evidence(const LineChange& c) {
  const ImpactDelta& d = *c.change;
  return fmt::format(
      "impact {} -> {}, change {:+.3f} +/- {:.3f} (se), "
      "p = {:.2g}, q = {:.2g}{}",
      impact(c.base), impact(c.next), d.delta, d.se, d.p, d.q,
      d.versus_zero ? " (tested against 0: the line never ran "
                      "in the other profile)"
                    : "");
}

// Where the time went: the lines whose CPU time per visit rose most.
std::string causes(const report::SourcePaths& paths, const PointChange& p) {
  std::string out;
  for (size_t i = 0; i < p.costs.size() && i < 3; ++i) {
    const CostChange& c = p.costs[i];
    auto amount = [&](double v) {
      return c.in_seconds ? format::seconds(v) : fmt::format("{:.3g}", v);
    };
    std::string rel =
        c.base_cost > 0
            ? fmt::format(", {:+.0f}%", 100 * c.change() / c.base_cost)
            : "";
    out += fmt::format("{}{} +{} per visit ({} -> {}{})", i ? "; " : "",
                       where(paths, c.file, c.line, c.function),
                       amount(c.change()), amount(c.base_cost),
                       amount(c.new_cost), rel);
  }
  return out;
}

// The region's name in a finding: its function, or the code outside scope.
std::string region_name(const RegionCost& c) {
  return c.function.empty() ? std::string("code outside the profile's scope")
                            : fmt::format("function {}", c.function);
}

// Where its time went: the line that rose most, else the function.
std::string region_where(const report::SourcePaths& paths,
                         const RegionCost& c) {
  if (c.top_line > 0) return where(paths, c.top_file, c.top_line, c.function);
  return c.function.empty() ? std::string("(outside scope)") : c.function;
}

std::optional<FailRule> parse_one(const std::string& spec, std::string* error) {
  size_t eq = spec.find('=');
  std::string name = spec.substr(0, eq);
  FailRule r;
  if (name == "new-bottleneck") {
    if (eq != std::string::npos) {
      *error = "--fail-on new-bottleneck takes no value";
      return std::nullopt;
    }
    r.kind = FailRule::Kind::kNewBottleneck;
    r.text = name;
    return r;
  }
  if (name == "impact-increase") {
    r.kind = FailRule::Kind::kImpactIncrease;
  } else if (name == "share-increase") {
    r.kind = FailRule::Kind::kShareIncrease;
  } else if (name == "slowdown") {
    r.kind = FailRule::Kind::kSlowdown;
  } else if (name == "cpu-slowdown") {
    r.kind = FailRule::Kind::kCpuSlowdown;
  } else if (name == "region-slowdown") {
    r.kind = FailRule::Kind::kRegionSlowdown;
  } else {
    *error = fmt::format(
        "unknown --fail-on rule '{}' (expected new-bottleneck, "
        "impact-increase=X, share-increase=PP, slowdown=PCT, "
        "cpu-slowdown=PCT or region-slowdown=PCT)",
        spec);
    return std::nullopt;
  }
  std::string value = eq == std::string::npos ? "" : spec.substr(eq + 1);
  double v = -1;
  auto [end, ec] =
      std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc() ||
      end != value.data() + value.size() || !std::isfinite(v) || v < 0) {
    *error =
        fmt::format("--fail-on {} needs a number >= 0, e.g. {}=5", name, name);
    return std::nullopt;
  }
  r.threshold = v;
  r.text = fmt::format("{}={}", name, v);
  return r;
}

}  // namespace

std::optional<std::vector<FailRule>> parse_fail_rules(
    const std::vector<std::string>& specs, std::string* error) {
  std::vector<FailRule> rules;
  for (const std::string& joined : specs) {
    size_t start = 0;
    while (start <= joined.size()) {
      size_t comma = joined.find(',', start);
      std::string spec =
          joined.substr(start, comma == std::string::npos ? std::string::npos
                                                          : comma - start);
      if (spec.empty()) {
        *error = "--fail-on has an empty rule";
        return std::nullopt;
      }
      auto rule = parse_one(spec, error);
      if (!rule) return std::nullopt;
      rules.push_back(std::move(*rule));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return rules;
}

std::vector<Finding> evaluate_fail_rules(const ProfileDiff& diff,
                                         const std::vector<FailRule>& rules) {
  std::vector<Finding> out;
  for (const FailRule& r : rules) {
    switch (r.kind) {
      case FailRule::Kind::kNewBottleneck:
        for (const PointChange& p : diff.points) {
          for (const LineChange& c : p.lines) {
            if (c.status != LineStatus::kNewBottleneck) continue;
            const auto& l = c.line();
            out.push_back({r.text, fmt::format("{} is a new bottleneck for "
                                               "'{}': {}",
                                               where(diff.paths, l.file, l.line,
                                                     l.function),
                                               p.name, evidence(c))});
          }
        }
        break;
      case FailRule::Kind::kImpactIncrease:
        for (const PointChange& p : diff.points) {
          for (const LineChange& c : p.lines) {
            if (!c.change || !c.change->significant ||
                c.change->delta < r.threshold || c.change->delta <= 0)
              continue;
            const auto& l = c.line();
            out.push_back(
                {r.text,
                 fmt::format("the impact of {} on '{}' rose by {:.3f}: "
                             "{}",
                             where(diff.paths, l.file, l.line, l.function),
                             p.name, c.change->delta, evidence(c))});
          }
        }
        break;
      case FailRule::Kind::kShareIncrease:
        for (const ShareChange& s : diff.lines) {
          double pp = 100 * s.change();
          if (pp < r.threshold || pp <= 0) continue;
          out.push_back(
              {r.text,
               fmt::format("{} rose from {:.1f}% to {:.1f}% of samples",
                           where(diff.paths, s.file, s.line, s.function),
                           100 * s.base_share, 100 * s.new_share)});
        }
        break;
      case FailRule::Kind::kSlowdown:
        for (const PointChange& p : diff.points) {
          // Slower beyond noise (q) and by at least PCT by the estimate.
          if (!p.speed_change || !p.speed_change->significant) continue;
          const SpeedChange& c = *p.speed_change;
          if (c.slower_pct < r.threshold || c.slower_pct <= 0) continue;
          std::string why = causes(diff.paths, p);
          out.push_back(
              {r.text,
               fmt::format("'{}' got {:.1f}% slower ({} -> {} {}), interval "
                           "[{:.1f}%, {:.1f}%], p = {:.2g}, q = {:.2g} ({} vs "
                           "{} runs){}{}",
                           p.name, c.slower_pct,
                           format::seconds(p.base_baseline),
                           format::seconds(p.new_baseline),
                           p.kind == profile::PointKind::kLatency ? "latency"
                                                                  : "per visit",
                           c.low_pct, c.high_pct, c.p, c.q, p.base_speed->runs,
                           p.new_speed->runs,
                           why.empty() ? "" : "; time went to: ", why)});
        }
        break;
      case FailRule::Kind::kCpuSlowdown:
        for (const PointChange& p : diff.points) {
          if (!p.cpu_change || !p.cpu_change->significant) continue;
          const SpeedChange& c = *p.cpu_change;
          if (c.slower_pct < r.threshold || c.slower_pct <= 0) continue;
          std::string why = causes(diff.paths, p);
          out.push_back(
              {r.text,
               fmt::format("'{}' takes {:.1f}% more CPU time per visit ({} -> "
                           "{}), interval [{:.1f}%, {:.1f}%], p = {:.2g}, q = "
                           "{:.2g} ({} vs {} runs){}{}",
                           p.name, c.slower_pct,
                           format::seconds(std::exp(p.base_cpu->log_mean)),
                           format::seconds(std::exp(p.new_cpu->log_mean)),
                           c.low_pct, c.high_pct, c.p, c.q, p.base_cpu->runs,
                           p.new_cpu->runs,
                           why.empty() ? "" : "; time went to: ", why)});
        }
        break;
      case FailRule::Kind::kRegionSlowdown:
        for (const PointChange& p : diff.points) {
          for (const RegionCost& c : p.regions.rose) {
            if (!c.significant || c.implied_pct < r.threshold) continue;
            out.push_back(
                {r.text,
                 fmt::format(
                     "{} costs '{}' {:.1f}% more of the program's CPU time "
                     "per visit, measured against the rest of each run ({} "
                     "-> {} of {} per visit), interval [{:.1f}%, {:.1f}%], "
                     "p = {:.2g}, q = {:.2g} (over {} regions; {} vs {} "
                     "runs); time went to: {}",
                     region_name(c), p.name, c.implied_pct,
                     format::seconds(c.base_cost), format::seconds(c.new_cost),
                     format::seconds(c.base_total), c.low_pct, c.high_pct, c.p,
                     c.q, p.regions.tested, p.regions.base_runs,
                     p.regions.new_runs, region_where(diff.paths, c))});
          }
        }
        break;
    }
  }
  return out;
}

}  // namespace andweorc::compare
