// trace_view.cc: see trace_view.h.
#include "profile/trace_view.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

namespace andweorc::profile {

const TracedFunction* find_trace(const Profile& p, const std::string& name,
                                 std::string* error) {
  if (p.traces.empty()) {
    *error = "the profile has no traced functions (run with --trace FUNCTION)";
    return nullptr;
  }
  if (name.empty() && p.traces.size() == 1) return &p.traces.front();
  for (const TracedFunction& t : p.traces)
    if (t.name == name) return &t;
  std::string names;
  for (const TracedFunction& t : p.traces)
    names += (names.empty() ? "" : ", ") + t.name;
  *error = (name.empty() ? std::string("name the traced function")
                         : "'" + name + "' was not traced") +
           "; traced: " + names;
  return nullptr;
}

uint64_t duration_percentile(const TracedFunction& t, double q) {
  const auto& d = t.durations_ns;
  if (d.empty()) return 0;
  double rank = std::ceil(q / 100.0 * double(d.size()));
  size_t i = rank < 1 ? 0 : std::min(d.size(), size_t(rank)) - 1;
  return d[i];
}

std::optional<uint64_t> parse_threshold(const TracedFunction& t,
                                        const std::string& text,
                                        std::string* error) {
  auto bad = [&] {
    *error =
        "--slower-than takes a percentile (p95, p99.9) or a duration "
        "(2ms, 150us, 1.5s, 800ns), not '" +
        text + "'";
    return std::nullopt;
  };
  if (text.size() < 2) return bad();
  char* end = nullptr;
  if (text[0] == 'p') {
    double q = std::strtod(text.c_str() + 1, &end);
    if (end == text.c_str() + 1 || *end != '\0' || !(q > 0 && q < 100))
      return bad();
    return duration_percentile(t, q);
  }
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(v >= 0) || !std::isfinite(v)) return bad();
  static const std::map<std::string, double> kUnits = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  auto unit = kUnits.find(end);
  if (unit == kUnits.end()) return bad();
  return uint64_t(std::llround(v * unit->second));
}

uint64_t calls_slower_than(const TracedFunction& t, uint64_t threshold_ns) {
  const auto& d = t.durations_ns;
  return uint64_t(d.end() - std::upper_bound(d.begin(), d.end(), threshold_ns));
}

Profile calls_profile(const Profile& p, const TracedFunction& t,
                      uint64_t threshold_ns, bool slow) {
  Profile out;
  out.run = p.run;
  out.settings = p.settings;
  out.scope = p.scope;
  out.processes = p.processes;
  out.threads = p.threads;
  out.frames = p.frames;
  out.labels = p.labels;
  std::vector<uint64_t> weight(p.stacks.size(), 0);
  for (const TraceSample& s : t.samples)
    if (s.stack < weight.size() && (s.duration_ns > threshold_ns) == slow)
      weight[s.stack] += s.samples;
  for (size_t i = 0; i < p.stacks.size(); ++i)
    if (weight[i] > 0) {
      Stack s = p.stacks[i];
      s.samples = weight[i];
      out.samples += weight[i];
      out.stacks.push_back(std::move(s));
    }
  return out;
}

}  // namespace andweorc::profile
