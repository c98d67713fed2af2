// parse_error.h: the profile reader's error for a JSON document, for the
// tests that damage a valid document one field at a time.
#ifndef ANDWEORC_TESTS_PROFILE_PARSE_ERROR_H_
#define ANDWEORC_TESTS_PROFILE_PARSE_ERROR_H_

#include <nlohmann/json.hpp>
#include <string>

#include "profile/profile_json.h"

namespace andweorc::profile::testing {

// Parses `j` as a profile document; its error, or "" when it reads.
inline std::string error_of(const nlohmann::json& j) {
  ReadResult r = parse_profile(j.dump(), "p.json");
  return r.ok() ? "" : r.error;
}

}  // namespace andweorc::profile::testing

#endif  // ANDWEORC_TESTS_PROFILE_PARSE_ERROR_H_
