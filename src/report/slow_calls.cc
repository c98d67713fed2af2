// slow_calls.cc: see slow_calls.h. Shares are of each side's own samples,
// so the two columns compare where time goes, not how much of it there is.
#include "report/slow_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "profile/attribution.h"
#include "profile/trace_view.h"
#include "report/flame_json.h"
#include "report/profile_flame.h"

namespace andweorc::report {
namespace {

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct Row {
  std::string where, function;
  double slow = 0, fast = 0;
};

// Rows keyed by (where, function) with the share of each side.
template <typename Counts, typename Key>
std::vector<Row> rows(const profile::Attribution& slow,
                      const profile::Attribution& fast, const Counts& s,
                      const Counts& f, Key key) {
  std::map<std::pair<std::string, std::string>, Row> by;
  for (const auto& c : s) {
    Row& r = by[key(c)];
    std::tie(r.where, r.function) = key(c);
    r.slow += slow.share(c.samples);
  }
  for (const auto& c : f) {
    Row& r = by[key(c)];
    std::tie(r.where, r.function) = key(c);
    r.fast += fast.share(c.samples);
  }
  std::vector<Row> out;
  for (auto& [k, r] : by) out.push_back(r);
  return out;
}

void table(const std::string& title, std::vector<Row> rs, size_t top,
           bool by_gain, std::ostream& out) {
  std::stable_sort(rs.begin(), rs.end(), [&](const Row& a, const Row& b) {
    return by_gain ? a.slow - a.fast > b.slow - b.fast : a.slow > b.slow;
  });
  out << "\n" << title << "\n";
  out << fmt::format("  {:>7} {:>7} {:>8}  {}\n", "slow", "fast", "diff",
                     "where");
  size_t shown = 0;
  for (const Row& r : rs) {
    if (shown == top || (by_gain ? r.slow - r.fast <= 0 : r.slow <= 0)) break;
    out << fmt::format("  {:>6.1f}% {:>6.1f}% {:>+7.1f}  {}{}\n", 100 * r.slow,
                       100 * r.fast, 100 * (r.slow - r.fast), r.where,
                       r.function.empty() ? "" : "  " + r.function);
    ++shown;
  }
  if (shown == 0) out << "  (none)\n";
}

}  // namespace

std::string format_duration(uint64_t ns) {
  double v = double(ns);
  if (ns >= 1000000000) return fmt::format("{:.2f} s", v / 1e9);
  if (ns >= 1000000) return fmt::format("{:.2f} ms", v / 1e6);
  if (ns >= 1000) return fmt::format("{:.1f} us", v / 1e3);
  return fmt::format("{} ns", ns);
}

void write_trace_summary(const profile::Profile& p, std::ostream& out) {
  if (p.traces.empty()) return;
  out << "\nTraced functions (--trace): calls and their durations\n";
  for (const auto& t : p.traces) {
    if (!t.traced) {
      out << fmt::format(
          "  {}: not traced (the runtime could not patch it; "
          "see the warnings)\n",
          t.name);
      continue;
    }
    uint64_t samples = 0;
    for (const auto& s : t.samples) samples += s.samples;
    out << fmt::format(
        "  {}: {} calls, p50 {}, p90 {}, p95 {}, p99 {}, max {}; {} samples "
        "inside\n",
        t.name, t.durations_ns.size(),
        format_duration(profile::duration_percentile(t, 50)),
        format_duration(profile::duration_percentile(t, 90)),
        format_duration(profile::duration_percentile(t, 95)),
        format_duration(profile::duration_percentile(t, 99)),
        format_duration(t.durations_ns.empty() ? 0 : t.durations_ns.back()),
        samples);
  }
}

nlohmann::ordered_json trace_summary_json(const profile::Profile& p) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& t : p.traces) {
    uint64_t samples = 0;
    for (const auto& s : t.samples) samples += s.samples;
    out.push_back(nlohmann::ordered_json{
        {"name", t.name},
        {"traced", t.traced},
        {"calls", t.durations_ns.size()},
        {"samples", samples},
        {"p50_ns", profile::duration_percentile(t, 50)},
        {"p90_ns", profile::duration_percentile(t, 90)},
        {"p95_ns", profile::duration_percentile(t, 95)},
        {"p99_ns", profile::duration_percentile(t, 99)},
        {"max_ns", t.durations_ns.empty() ? 0 : t.durations_ns.back()}});
  }
  return out;
}

namespace {

// Log-spaced bins from the shortest to the longest call (one bin when they
// are all equal): lower edges and counts.
nlohmann::ordered_json histogram(const std::vector<uint64_t>& d) {
  std::vector<uint64_t> edges, counts;
  if (!d.empty()) {
    double lo = double(std::max<uint64_t>(d.front(), 1));
    double hi = double(std::max<uint64_t>(d.back(), 1));
    size_t bins = hi > lo ? 40 : 1;
    double step = bins > 1 ? std::log(hi / lo) / double(bins) : 0;
    for (size_t b = 0; b < bins; ++b)
      edges.push_back(uint64_t(lo * std::exp(step * double(b))));
    counts.assign(bins, 0);
    for (uint64_t v : d) {
      size_t b =
          std::upper_bound(edges.begin(), edges.end(), v) - edges.begin();
      counts[b == 0 ? 0 : b - 1]++;
    }
  }
  return nlohmann::ordered_json{{"bins_ns", edges}, {"counts", counts}};
}

}  // namespace

nlohmann::ordered_json trace_html_json(const profile::Profile& p, size_t top) {
  nlohmann::ordered_json out = trace_summary_json(p);
  for (size_t i = 0; i < p.traces.size(); ++i) {
    const auto& t = p.traces[i];
    uint64_t threshold = profile::duration_percentile(t, 95);
    profile::Profile slow = profile::calls_profile(p, t, threshold, true);
    profile::Profile fast = profile::calls_profile(p, t, threshold, false);
    profile::Attribution as = profile::attribute(slow);
    profile::Attribution af = profile::attribute(fast);
    std::map<std::pair<std::string, std::string>, std::pair<double, double>> by;
    auto key = [](const profile::LineCount& c) {
      return std::make_pair(
          c.line > 0 ? fmt::format("{}:{}", base_name(c.file), c.line)
                     : std::string("(no line)"),
          c.function);
    };
    for (const auto& c : as.lines) by[key(c)].first += as.share(c.samples);
    for (const auto& c : af.lines) by[key(c)].second += af.share(c.samples);
    std::vector<std::pair<std::pair<std::string, std::string>,
                          std::pair<double, double>>>
        rows(by.begin(), by.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) {
                       return a.second.first > b.second.first;
                     });
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const auto& [k, v] : rows) {
      if (lines.size() == top || v.first <= 0) break;
      lines.push_back({{"where", k.first},
                       {"function", k.second},
                       {"slow", v.first},
                       {"fast", v.second}});
    }
    out[i]["histogram"] = histogram(t.durations_ns);
    out[i]["slow_threshold_ns"] = threshold;
    out[i]["slow_calls"] = profile::calls_slower_than(t, threshold);
    out[i]["slow_samples"] = as.total;
    out[i]["fast_samples"] = af.total;
    out[i]["lines"] = std::move(lines);
    // The slow calls' stacks, each frame with the other calls' samples.
    out[i]["flame"] = flame_json(
        profile_flame_against(slow, fast, kFlameMinShare, kFlameMaxFrames));
  }
  return out;
}

void write_slow_calls_text(const profile::Profile& p,
                           const profile::TracedFunction& t,
                           uint64_t threshold_ns, const std::string& threshold,
                           size_t top, std::ostream& out) {
  profile::Profile slow = profile::calls_profile(p, t, threshold_ns, true);
  profile::Profile fast = profile::calls_profile(p, t, threshold_ns, false);
  uint64_t n_slow = profile::calls_slower_than(t, threshold_ns);
  out << fmt::format(
      "Calls of {} slower than {} ({}): {} of {} calls, {} samples; the "
      "other {} calls: {} samples\n",
      t.name, threshold, format_duration(threshold_ns), n_slow,
      t.durations_ns.size(), slow.samples, t.durations_ns.size() - n_slow,
      fast.samples);
  if (slow.samples == 0)
    out << "No samples fell inside the slow calls (they are shorter than the "
           "sample period, or too few): lower --sample-period or trace "
           "longer.\n";
  profile::Attribution as = profile::attribute(slow);
  profile::Attribution af = profile::attribute(fast);
  auto line_key = [](const profile::LineCount& c) {
    return std::make_pair(c.line > 0
                              ? fmt::format("{}:{}", base_name(c.file), c.line)
                              : std::string("(no line)"),
                          c.function);
  };
  auto fn_key = [](const profile::FunctionCount& c) {
    return std::make_pair(
        c.function.empty() ? std::string("(unknown)") : c.function,
        std::string());
  };
  auto lines = rows(as, af, as.lines, af.lines, line_key);
  table("Lines: share of the slow calls' samples, beside the other calls'",
        lines, top, false, out);
  table("Functions: share of the slow calls' samples, beside the other calls'",
        rows(as, af, as.functions, af.functions, fn_key), top, false, out);
  table("Lines that gain the most share in slow calls", lines, top, true, out);
}

}  // namespace andweorc::report
