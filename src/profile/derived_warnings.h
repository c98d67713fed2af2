// derived_warnings.h: warnings computed from a Profile's contents.
//
// Contract: derived_warnings(p) returns one-sentence warnings, each with its
// fix, that follow from the profile's numbers rather than from raw data:
//   - fewer than kLowMappedShare of the samples have a source line at their
//     leaf frame ("only 12% of samples mapped to a source line: build with
//     -g").
// The ingest code reports what only it can see (runtime notes, unclean
// exits, modules without debug info, lost samples, no samples) in
// Profile::warnings and should not store these. Writers show p.warnings
// first, then these, skipping exact duplicates: use all_warnings(p).
// "No sample in scope" is not a warning here: the report says it in place of
// the top-lines table.
#ifndef ANDWEORC_PROFILE_DERIVED_WARNINGS_H_
#define ANDWEORC_PROFILE_DERIVED_WARNINGS_H_

#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::profile {

// Below this share of samples with a source line, warn.
inline constexpr double kLowMappedShare = 0.5;

std::vector<std::string> derived_warnings(const Profile& p);

// p.warnings followed by derived_warnings(p), without duplicates.
std::vector<std::string> all_warnings(const Profile& p);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_DERIVED_WARNINGS_H_
