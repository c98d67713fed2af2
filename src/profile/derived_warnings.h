// derived_warnings.h: warnings computed from a Profile's contents.
//
// Contract: derived_warnings(p) returns one-sentence warnings (each with its
// fix where there is one) that follow from the data alone:
//   - no samples were recorded;
//   - less than half of the samples have a source line (build with -g);
//   - some samples were lost (buffers were full).
// The ingest code should not store these in Profile::warnings; writers show
// p.warnings first, then these, skipping exact duplicates (all_warnings).
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
