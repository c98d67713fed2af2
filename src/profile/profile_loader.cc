// profile_loader.cc: see profile_loader.h.
#include "profile/profile_loader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "profile/coz_reader.h"

namespace andweorc::profile {
namespace {

ReadResult failure(std::string message) {
  ReadResult r;
  r.error = std::move(message);
  return r;
}

}  // namespace

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
    return failure(fmt::format("{}: cannot read profile: {}", name, e.what()));
  }
}

ReadResult load_profile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return failure(
        fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return failure(fmt::format("cannot read {}: it is a directory", path));
  }
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > kMaxProfileBytes) {
    ::close(fd);
    return failure(fmt::format("cannot read {}: larger than {} MiB", path,
                               kMaxProfileBytes >> 20));
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return failure(
          fmt::format("cannot read {}: {}", path, std::strerror(err)));
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > kMaxProfileBytes) {
      ::close(fd);
      return failure(fmt::format("cannot read {}: larger than {} MiB", path,
                                 kMaxProfileBytes >> 20));
    }
    try {
      text.append(buf, static_cast<size_t>(n));
    } catch (const std::bad_alloc&) {
      ::close(fd);
      return failure(fmt::format("cannot read {}: file too large", path));
    }
  }
  ::close(fd);
  return parse_any_profile(text, path);
}

}  // namespace andweorc::profile
