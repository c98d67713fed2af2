// line_matching.cc: see line_matching.h.
#include "compare/line_matching.h"

#include <cstdlib>
#include <functional>

namespace andweorc::compare {
namespace {

bool texts_known_and_differ(const LineKey& a, const LineKey& b) {
  return a.text && b.text && *a.text != *b.text;
}

bool same_source(const LineKey& b, const LineKey& n) {
  if (!b.text || !n.text || *b.text != *n.text) return false;
  if (b.function != n.function) return false;
  return !b.function.empty() || file_basename(b.file) == file_basename(n.file);
}

bool same_function(const LineKey& b, const LineKey& n) {
  return !b.function.empty() && b.function == n.function &&
         file_basename(b.file) == file_basename(n.file) &&
         !texts_known_and_differ(b, n);
}

bool same_location(const LineKey& b, const LineKey& n) {
  return b.line == n.line && file_basename(b.file) == file_basename(n.file) &&
         !texts_known_and_differ(b, n);
}

}  // namespace

std::string file_basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* match_kind_name(MatchKind k) {
  switch (k) {
    case MatchKind::kSource:
      return "source";
    case MatchKind::kFunction:
      return "function";
    case MatchKind::kLocation:
      return "location";
  }
  return "?";
}

Matching match_lines(const std::vector<LineKey>& base,
                     const std::vector<LineKey>& new_lines) {
  Matching m;
  m.base_of_new.assign(new_lines.size(), -1);
  m.kind_of_new.assign(new_lines.size(), MatchKind::kLocation);
  std::vector<bool> base_used(base.size(), false);
  using Rule = std::function<bool(const LineKey&, const LineKey&)>;
  const std::pair<MatchKind, Rule> passes[] = {
      {MatchKind::kSource, same_source},
      {MatchKind::kFunction, same_function},
      {MatchKind::kLocation, same_location},
  };
  for (const auto& [kind, rule] : passes) {
    for (size_t i = 0; i < new_lines.size(); ++i) {
      if (m.base_of_new[i] >= 0) continue;
      const LineKey& n = new_lines[i];
      int best = -1;
      long best_distance = 0;
      for (size_t j = 0; j < base.size(); ++j) {
        if (base_used[j] || base[j].granularity != n.granularity ||
            !rule(base[j], n))
          continue;
        long distance = std::labs(static_cast<long>(base[j].line) - n.line);
        if (best < 0 || distance < best_distance) {
          best = static_cast<int>(j);
          best_distance = distance;
        }
      }
      if (best >= 0) {
        m.base_of_new[i] = best;
        m.kind_of_new[i] = kind;
        base_used[static_cast<size_t>(best)] = true;
      }
    }
  }
  return m;
}

}  // namespace andweorc::compare
