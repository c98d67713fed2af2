// profile_json.h: Profile <-> the versioned JSON file (docs/profile-format.md).
//
// Contract:
//  - to_json/dump_profile write every field of the current schema version
//    (kSchemaMajor.kSchemaMinor), keys in a fixed, readable order. Strings that
//    are not valid UTF-8 are written with U+FFFD replacement characters.
//  - parse_profile/read_profile never throw (short of std::bad_alloc being
//    impossible to report) and never crash on any input. They return either a
//    fully validated Profile -- every field present with the right type, every
//    frame index in range -- or a one-line error naming the file and the
//    problem. Unknown fields are ignored; another major version is rejected.
//  - write_profile writes the file atomically (see atomic_file.h).
#ifndef ANDWEORC_PROFILE_PROFILE_JSON_H_
#define ANDWEORC_PROFILE_PROFILE_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "profile/profile.h"

namespace andweorc::profile {

// The value of the top-level "format" field.
inline constexpr std::string_view kFormatTag = "andweorc-profile";

// "MAJOR.MINOR" of the current schema, e.g. "1.2".
std::string schema_version();

// The JSON document for `p`; keys keep the documented order.
nlohmann::ordered_json to_json(const Profile& p);

// The document as text, ending with a newline. indent >= 0: pretty-printed
// with that many spaces per level, except that each record of the frames,
// stacks, points and processes arrays is one compact line. indent < 0: the
// whole document on one line.
std::string dump_profile(const Profile& p, int indent = 2);

// "throughput" or "latency": a point kind as the file (and every report)
// names it.
const char* point_kind_name(PointKind k);

// A progress point's record as the file writes it: {name, kind, visits,
// begins, ends}.
nlohmann::ordered_json point_json(const ProgressPoint& pt);

// Writes dump_profile(p) to `path` atomically. On failure returns false and
// sets *error (if non-null) to a one-line message.
bool write_profile(const Profile& p, const std::string& path,
                   std::string* error);

struct ReadResult {
  std::optional<Profile> profile;  // set on success
  std::string error;               // one line, set on failure
  bool ok() const { return profile.has_value(); }
  // A failed read with its one-line error (what every reader returns).
  static ReadResult failed(std::string message) {
    ReadResult r;
    r.error = std::move(message);
    return r;
  }
};

// Parses profile text. `name` is used in error messages (usually the path).
ReadResult parse_profile(std::string_view text,
                         std::string_view name = "<input>");

// Reads and parses the file at `path`.
ReadResult read_profile(const std::string& path);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_PROFILE_JSON_H_
