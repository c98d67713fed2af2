// fuzz_profile_json.cc: the JSON profile reader, and every consumer of what
// it accepts (analysis, attribution, reports, diff, merge), on any input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/exercise_profile.h"
#include "profile/profile_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  andweorc::profile::ReadResult r = andweorc::profile::parse_profile(text);
  if (r.ok()) andweorc::fuzz::exercise_profile(*r.profile);
  return 0;
}
