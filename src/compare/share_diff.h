// share_diff.h: the sample-share and cost parts of a diff (profile_diff.h
// says what they mean): line and function shares on both sides, sorted by
// |change|, and the lines whose CPU time per visit rose most. Internal to
// compare/.
#ifndef ANDWEORC_COMPARE_SHARE_DIFF_H_
#define ANDWEORC_COMPARE_SHARE_DIFF_H_

#include <vector>

#include "compare/line_matching.h"
#include "compare/profile_diff.h"
#include "compare/source_text.h"
#include "profile/attribution.h"
#include "profile/profile.h"

namespace andweorc::compare {

// The key a sampled line is matched by (its text from `source`, if any).
LineKey line_key(const profile::LineCount& l, SourceText* source);

// Per line: matched across the sides (line_matching.h) like impacts.
std::vector<ShareChange> diff_line_shares(const profile::Attribution& base,
                                          const profile::Attribution& next,
                                          const DiffOptions& o);

// Per function: by function name and file base name.
std::vector<ShareChange> diff_function_shares(const profile::Attribution& base,
                                              const profile::Attribution& next);

// The lines of `lines` whose CPU time per visit of point `pc` rose, most
// first, at most 5; none when either side has no visit of it.
std::vector<CostChange> cost_changes(const std::vector<ShareChange>& lines,
                                     const profile::Profile& base,
                                     const profile::Attribution& ba,
                                     const profile::Profile& next,
                                     const profile::Attribution& na,
                                     const PointChange& pc);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_SHARE_DIFF_H_
