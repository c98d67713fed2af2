// text_file.cc: see text_file.h.
#include "profile/text_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

namespace andweorc::profile {

std::optional<std::string> read_text_file(const std::string& path,
                                          size_t max_bytes,
                                          std::string* error) {
  auto fail = [&](const std::string& why) {
    *error = fmt::format("cannot read {}: {}", path, why);
    return std::nullopt;
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(std::strerror(errno));
  // Closes fd on every return below.
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string too_large = fmt::format("larger than {} MiB", max_bytes >> 20);
  struct stat st {};
  if (::fstat(fd, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return fail("it is a directory");
    // Refuse before reading; the loop below catches files that grow or
    // report no size (pipes, /proc).
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes)
      return fail(too_large);
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::strerror(errno));
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > max_bytes)
      return fail(too_large);
    try {
      text.append(buf, static_cast<size_t>(n));
    } catch (const std::bad_alloc&) {
      return fail("file too large");
    }
  }
  return text;
}

}  // namespace andweorc::profile
