// profile_loader.cc: see profile_loader.h.
#include "profile/profile_loader.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "profile/coz_reader.h"
#include "profile/text_file.h"

namespace andweorc::profile {

ProfileFormat detect_format(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || text[start] != '{') {
    return ProfileFormat::kCoz;
  }
  size_t nl = text.find('\n', start);
  std::string_view first =
      text.substr(start, nl == text.npos ? text.npos : nl - start);
  // Our writer never puts a whole object on the first line unless the
  // document is one line; then it has "format", not "type".
  nlohmann::json j = nlohmann::json::parse(first, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("type") &&
      !j.contains("format")) {
    return ProfileFormat::kCoz;
  }
  return ProfileFormat::kAndweorcJson;
}

ReadResult parse_any_profile(std::string_view text, std::string_view name) {
  try {
    return detect_format(text) == ProfileFormat::kCoz
               ? parse_coz(text, name)
               : parse_profile(text, name);
  } catch (const std::exception& e) {  // bad_alloc in detect_format
    return ReadResult::failed(
        fmt::format("{}: cannot read profile: {}", name, e.what()));
  }
}

ReadResult load_profile(const std::string& path) {
  std::string error;
  std::optional<std::string> text =
      read_text_file(path, kMaxProfileBytes, &error);
  if (!text) return ReadResult::failed(std::move(error));
  return parse_any_profile(*text, path);
}

}  // namespace andweorc::profile
