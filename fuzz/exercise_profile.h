// exercise_profile.h: runs everything downstream of a reader on a Profile
// it accepted, so the fuzzers also check that "validated" really means
// safe to use. Aborts when a documented property fails.
#ifndef ANDWEORC_FUZZ_EXERCISE_PROFILE_H_
#define ANDWEORC_FUZZ_EXERCISE_PROFILE_H_

#include "profile/profile.h"

namespace andweorc::fuzz {

void exercise_profile(const profile::Profile& p);

}  // namespace andweorc::fuzz

#endif  // ANDWEORC_FUZZ_EXERCISE_PROFILE_H_
