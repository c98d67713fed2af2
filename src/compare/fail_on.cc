// fail_on.cc: see fail_on.h.
#include "compare/fail_on.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace andweorc::compare {
namespace {

std::string where(const std::string& file, int line,
                  const std::string& function) {
  std::string s = fmt::format("{}:{}", file_basename(file), line);
  if (!function.empty()) s += fmt::format(" ({})", function);
  return s;
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
  } else {
    *error = fmt::format(
        "unknown --fail-on rule '{}' (expected new-bottleneck, "
        "impact-increase=X, share-increase=PP or slowdown=PCT)",
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
            out.push_back(
                {r.text, fmt::format("{} is a new bottleneck for '{}' "
                                     "(impact {:.3f})",
                                     where(l.file, l.line, l.function), p.name,
                                     c.next->slope)});
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
                {r.text, fmt::format("the impact of {} on '{}' rose by {:.3f} "
                                     "({:.3f} -> {:.3f}, p = {:.3g})",
                                     where(l.file, l.line, l.function), p.name,
                                     c.change->delta, c.base->slope,
                                     c.next->slope, c.change->p)});
          }
        }
        break;
      case FailRule::Kind::kShareIncrease:
        for (const ShareChange& s : diff.lines) {
          double pp = 100 * s.change();
          if (pp < r.threshold || pp <= 0) continue;
          out.push_back(
              {r.text, fmt::format("{} rose from {:.1f}% to {:.1f}% of samples",
                                   where(s.file, s.line, s.function),
                                   100 * s.base_share, 100 * s.new_share)});
        }
        break;
      case FailRule::Kind::kSlowdown:
        for (const PointChange& p : diff.points) {
          if (!p.speedup) continue;
          // speedup = (base - new) / base; slower means new > base.
          double slower =
              100 * (p.new_baseline - p.base_baseline) / p.base_baseline;
          if (slower < r.threshold || slower <= 0) continue;
          out.push_back(
              {r.text, fmt::format("'{}' got {:.1f}% slower", p.name, slower)});
        }
        break;
    }
  }
  return out;
}

}  // namespace andweorc::compare
