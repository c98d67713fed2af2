// attribution.h: where the samples went, as the report shows it.
//
// Contract (pure functions of a validated Profile):
//  - Each stack's samples go to its first in-scope frame, searching leaf
//    first (frames[0] is the leaf; an inlined callee comes before its
//    caller). A stack with no in-scope frame counts as out of scope.
//  - Per-line rows are keyed by (file, line, function); per-function rows
//    by (function, file), so same-named static functions in different files
//    stay apart. Rows are sorted by samples, most first; ties keep key order
//    (file, line, function / function, file), so the order is deterministic.
//  - "Mapped" samples are those whose leaf frame has a source line (> 0).
//  - Shares are fractions of `total`, the sum of all stacks' samples; they
//    are 0 when total is 0.
#ifndef ANDWEORC_PROFILE_ATTRIBUTION_H_
#define ANDWEORC_PROFILE_ATTRIBUTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::profile {

struct LineCount {
  std::string file;  // as in the Frame (full path); "" when unknown
  int line = 0;      // 0 when unknown
  std::string function;
  uint64_t samples = 0;
  bool operator==(const LineCount&) const = default;
};

struct FunctionCount {
  std::string function;  // "" when unknown
  std::string file;      // its source file; "" when unknown
  uint64_t samples = 0;
  bool operator==(const FunctionCount&) const = default;
};

struct Attribution {
  uint64_t total = 0;     // sum of Stack::samples
  uint64_t mapped = 0;    // leaf frame has line > 0
  uint64_t in_scope = 0;  // attributed to some in-scope frame
  std::vector<LineCount> lines;
  std::vector<FunctionCount> functions;

  double mapped_share() const { return share(mapped); }
  double in_scope_share() const { return share(in_scope); }
  double share(uint64_t samples) const {
    return total == 0
               ? 0.0
               : static_cast<double>(samples) / static_cast<double>(total);
  }
};

// Index of the first in-scope frame of `s` (leaf first) in s.frames, or -1.
int first_in_scope(const Profile& p, const Stack& s);

Attribution attribute(const Profile& p);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_ATTRIBUTION_H_
