// merge.h: several profiles of one program -> one profile with more
// statistical power.
//
// Contract (pure function of validated Profiles; never throws but for
// std::bad_alloc):
//  - Refused (error, one line) unless options.force: inputs of different
//    programs (program_name() known for both and different). Granularities
//    may differ: each experiment keeps its own (line or function), and the
//    analysis never pools a function's experiments with a line's.
//  - Experiments: all of them, input order. Samples: frames deduplicated,
//    stacks with identical frame lists summed. Progress points summed per
//    (name, kind); threads, samples and lost samples summed (a sum that
//    would overflow is an error); processes concatenated.
//  - Run info: the first input's command, settings (coarse_to_fine: true when
//    any input's is), scope, sampler, period and exit status; the earliest
//    start time; durations summed. Where the inputs differ in any of those, a
//    warning says so. Warnings are the union of the inputs' (first occurrence
//    order) plus one naming the inputs.
#ifndef ANDWEORC_PROFILE_MERGE_H_
#define ANDWEORC_PROFILE_MERGE_H_

#include <optional>
#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::profile {

struct MergeOptions {
  bool force = false;  // merge profiles of different programs anyway
};

struct MergeInput {
  std::string name;  // for messages, usually the path
  const Profile* profile = nullptr;
};

struct MergeResult {
  std::optional<Profile> profile;
  std::string error;  // one line, set on failure
  bool ok() const { return profile.has_value(); }
};

// Basename of the first process's executable, else of run.command[0];
// "" when neither is recorded (e.g. a profile imported from Coz).
std::string program_name(const Profile& p);

MergeResult merge_profiles(const std::vector<MergeInput>& inputs,
                           const MergeOptions& options = {});

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_MERGE_H_
