// attribution.cc: per-line and per-function sample counts for the report.
#include "profile/attribution.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

namespace andweorc::profile {

int first_in_scope(const Profile& p, const Stack& s) {
  for (size_t i = 0; i < s.frames.size(); ++i) {
    uint32_t f = s.frames[i];
    if (f < p.frames.size() && p.frames[f].in_scope) return static_cast<int>(i);
  }
  return -1;
}

Attribution attribute(const Profile& p) {
  Attribution a;
  using LineKey = std::tuple<std::string, int, std::string>;  // file, line, fn
  std::map<LineKey, uint64_t> lines;
  // function -> (samples, file of the first frame seen for it)
  std::map<std::pair<std::string, std::string>, uint64_t> functions;

  for (const Stack& s : p.stacks) {
    a.total += s.samples;
    if (!s.frames.empty() && s.frames[0] < p.frames.size() &&
        p.frames[s.frames[0]].line > 0) {
      a.mapped += s.samples;
    }
    int i = first_in_scope(p, s);
    if (i < 0) continue;
    const Frame& f = p.frames[s.frames[i]];
    a.in_scope += s.samples;
    lines[{f.file, f.line, f.function}] += s.samples;
    functions[{f.function, f.file}] += s.samples;
  }

  for (auto& [key, n] : lines) {
    a.lines.push_back(
        {std::get<0>(key), std::get<1>(key), std::get<2>(key), n});
  }
  for (auto& [key, n] : functions) {
    a.functions.push_back({key.first, key.second, n});
  }
  // std::map already ordered the keys, so a stable sort on samples leaves
  // ties in key order.
  std::stable_sort(a.lines.begin(), a.lines.end(),
                   [](const LineCount& x, const LineCount& y) {
                     return x.samples > y.samples;
                   });
  std::stable_sort(a.functions.begin(), a.functions.end(),
                   [](const FunctionCount& x, const FunctionCount& y) {
                     return x.samples > y.samples;
                   });
  return a;
}

}  // namespace andweorc::profile
