// proc_text.h: a small text file (/proc/self/maps, /proc/self/fdinfo/N)
// read whole into a string. Ordinary code only (allocates): attach start,
// detach and the collector; never a signal handler.
#ifndef ANDWEORC_RUNTIME_PROC_TEXT_H_
#define ANDWEORC_RUNTIME_PROC_TEXT_H_

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace andweorc::runtime {

// "" when the file cannot be opened.
inline std::string read_proc_text(const char* path) {
  std::string text;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[8192];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, n);
  close(fd);
  return text;
}

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_PROC_TEXT_H_
