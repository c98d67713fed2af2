// atomic_file.cc: temp file + fsync + rename, cleaning up on any failure.
#include "profile/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

namespace andweorc::profile {
namespace {

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The process umask, read without changing it (umask(2) would race with
// other threads creating files). Falls back to 022.
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) {
      return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8));
    }
  }
  return 022;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: some file systems refuse directory fsync
  ::close(fd);
}

}  // namespace

bool write_file_atomic(const std::string& path, std::string_view contents,
                       std::string* error) {
  auto fail = [&](int err) {
    if (error) {
      *error = fmt::format("cannot write {}: {}", path, std::strerror(err));
    }
    return false;
  };
  if (path.empty()) {
    if (error) *error = "cannot write: the path is empty";
    return false;
  }
  if (path.back() == '/') return fail(EISDIR);

  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return fail(errno);

  int err = 0;
  if (!write_all(fd, contents)) {
    err = errno;
  } else if (::fchmod(fd, 0666 & ~current_umask()) != 0) {
    err = errno;
  } else if (::fsync(fd) != 0) {
    err = errno;
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(name.data(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(name.data());
    return fail(err);
  }
  fsync_dir(dir_of(path));
  return true;
}

}  // namespace andweorc::profile
