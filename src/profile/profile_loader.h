// profile_loader.h: reads a profile in any format andweorc understands.
//
// Contract: load_profile reads the file at `path` and detects its format by
// content, never by extension:
//  - the first non-blank line parses as a JSON object with a "type" member:
//    Coz's JSON-lines records (coz_reader.h);
//  - otherwise a first non-blank character '{': an andweorc JSON profile
//    (profile_json.h);
//  - otherwise: Coz's tab-separated profile.coz (coz_reader.h).
// Files larger than kMaxProfileBytes (text_file.h) are refused before being
// read, so a stray huge file cannot exhaust memory. Errors are one line naming
// the file.
#ifndef ANDWEORC_PROFILE_PROFILE_LOADER_H_
#define ANDWEORC_PROFILE_PROFILE_LOADER_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "profile/profile_json.h"
#include "profile/text_file.h"

namespace andweorc::profile {

enum class ProfileFormat { kAndweorcJson, kCoz };

ProfileFormat detect_format(std::string_view text);

// Parses `text` in the detected format.
ReadResult parse_any_profile(std::string_view text,
                             std::string_view name = "<input>");

ReadResult load_profile(const std::string& path);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_PROFILE_LOADER_H_
