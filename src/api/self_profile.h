// self_profile.h: the profile of the running process, from the runtime's own
// raw records (the Runner reads them back in-process; `andweorc run` reads
// them after the program exits).
#ifndef ANDWEORC_API_SELF_PROFILE_H_
#define ANDWEORC_API_SELF_PROFILE_H_

#include <string>
#include <vector>

#include "profile/profile.h"

namespace andweorc::api {

struct SelfProfileOptions {
  std::vector<std::string> binary_scope;  // empty: the defaults
  std::vector<std::string> source_scope;
  double experiment_time_s = 0;  // for the profile's settings
  uint64_t seed = 0;
};

// Flushes what the runtime has collected and builds a symbolized Profile
// from it. False (and *error set to one line) when the records cannot be
// read. Not for signal handlers; takes io_lock briefly.
bool self_profile(const SelfProfileOptions& options, profile::Profile* out,
                  std::string* error);

}  // namespace andweorc::api

#endif  // ANDWEORC_API_SELF_PROFILE_H_
