// trace_json.cc: see trace_json.h. Each traced function is one object:
//   {"name": "f", "traced": true, "durations_ns": [ascending...],
//    "samples": [[stack, duration_ns, samples], ...]}
// Samples are triples, not objects: a long run has many.
#include "profile/trace_json.h"

#include <fmt/format.h>

#include <algorithm>

#include "profile/checked_json.h"

namespace andweorc::profile {

void write_traces(const Profile& p, nlohmann::ordered_json* j) {
  if (p.traces.empty()) return;
  nlohmann::ordered_json traces = nlohmann::ordered_json::array();
  for (const TracedFunction& t : p.traces) {
    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (const TraceSample& s : t.samples)
      samples.push_back({s.stack, s.duration_ns, s.samples});
    traces.push_back(nlohmann::ordered_json{{"name", t.name},
                                            {"traced", t.traced},
                                            {"durations_ns", t.durations_ns},
                                            {"samples", std::move(samples)}});
  }
  (*j)["traces"] = std::move(traces);
}

void read_traces(const nlohmann::json& doc, Profile* p) {
  // Inside the function: a unity build puts other files in this one.
  using namespace checked_json;  // NOLINT(google-build-using-namespace)
  if (!doc.contains("traces")) return;
  const Json& a = get_array(doc, "traces", "");
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string w = at("traces", i);
    const Json& o = as_object(a[i], w);
    TracedFunction t;
    t.name = get_string(o, "name", w);
    t.traced = get_bool(o, "traced", w);
    const Json& d = get_array(o, "durations_ns", w);
    for (size_t k = 0; k < d.size(); ++k)
      t.durations_ns.push_back(as_u64(d[k], at(join(w, "durations_ns"), k)));
    if (!std::is_sorted(t.durations_ns.begin(), t.durations_ns.end()))
      throw Invalid{
          fmt::format("field '{}.durations_ns' must be ascending", w)};
    const Json& s = get_array(o, "samples", w);
    for (size_t k = 0; k < s.size(); ++k) {
      const std::string ws = at(join(w, "samples"), k);
      if (!s[k].is_array() || s[k].size() != 3)
        throw Invalid{fmt::format(
            "field '{}' must be [stack, duration_ns, samples], not {}", ws,
            describe(s[k]))};
      TraceSample ts;
      uint64_t stack = as_u64(s[k][0], at(ws, 0));
      if (stack >= p->stacks.size())
        throw Invalid{fmt::format("field '{}' names stack {}, but there are {}",
                                  at(ws, 0), stack, p->stacks.size())};
      ts.stack = uint32_t(stack);
      ts.duration_ns = as_u64(s[k][1], at(ws, 1));
      ts.samples = as_u64(s[k][2], at(ws, 2));
      t.samples.push_back(ts);
    }
    p->traces.push_back(std::move(t));
  }
}

}  // namespace andweorc::profile
