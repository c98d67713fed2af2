// fuzz_coz_reader.cc: the profile.coz importer and format detection, and
// every consumer of what they accept.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/exercise_profile.h"
#include "profile/coz_reader.h"
#include "profile/profile_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  andweorc::profile::ReadResult r = andweorc::profile::parse_coz(text);
  if (r.ok()) andweorc::fuzz::exercise_profile(*r.profile);
  // Detection must pick some reader and that reader must not crash either.
  andweorc::profile::ReadResult any =
      andweorc::profile::parse_any_profile(text);
  (void)any;
  return 0;
}
