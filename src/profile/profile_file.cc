// profile_file.cc: a profile to and from its file (profile_json.h): the
// atomic write and the size-limited read.
#include <fmt/format.h>

#include <exception>
#include <optional>
#include <utility>

#include "profile/atomic_file.h"
#include "profile/profile_json.h"
#include "profile/text_file.h"

namespace andweorc::profile {

bool write_profile(const Profile& p, const std::string& path,
                   std::string* error) {
  std::string text;
  try {
    text = dump_profile(p);
  } catch (const std::exception& e) {
    if (error) *error = fmt::format("cannot write {}: {}", path, e.what());
    return false;
  }
  return write_file_atomic(path, text, error);
}

ReadResult read_profile(const std::string& path) {
  std::string error;
  std::optional<std::string> text =
      read_text_file(path, kMaxProfileBytes, &error);
  if (!text) {
    ReadResult r;
    r.error = std::move(error);
    return r;
  }
  return parse_profile(*text, path);
}

}  // namespace andweorc::profile
