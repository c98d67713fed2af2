// line_matching.h: which line of one profile is which line of another.
//
// The matching rule (docs/diff.md states it for users): a line of NEW is
// matched to at most one line of BASE, in three passes; each pass only
// considers lines still unmatched, and among several candidates takes the
// one with the nearest line number (then the first):
//   1. "source": same granularity, same function, same source text (read
//      from each side's source file, blanks normalized). Lines with no
//      function name (e.g. Coz imports) must also have the same file name.
//   2. "function": same granularity, same non-empty function, same file
//      name (basename), and the source text of at least one side unknown.
//   3. "location": same granularity, same file name and line number, and
//      the source text of at least one side unknown.
// Lines whose text is known on both sides and differs are not matched
// by passes 2 and 3: an edited line is a different line.
#ifndef ANDWEORC_COMPARE_LINE_MATCHING_H_
#define ANDWEORC_COMPARE_LINE_MATCHING_H_

#include <optional>
#include <string>
#include <vector>

namespace andweorc::compare {

enum class MatchKind { kSource, kFunction, kLocation };

struct LineKey {
  std::string file;
  int line = 0;
  std::string function;
  std::string granularity = "line";
  std::optional<std::string> text;  // normalized source line; nullopt: unknown
};

// result[i] = index into `base` matched to new_lines[i], or -1.
struct Matching {
  std::vector<int> base_of_new;
  std::vector<MatchKind> kind_of_new;  // meaningful where base_of_new >= 0
};

Matching match_lines(const std::vector<LineKey>& base,
                     const std::vector<LineKey>& new_lines);

const char* match_kind_name(MatchKind k);

// The file name without its directory.
std::string file_basename(const std::string& path);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_LINE_MATCHING_H_
