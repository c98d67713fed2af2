// attach_fds.cc: see attach_fds.h.
#include "runtime/attach_fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/internal_fds.h"
#include "runtime/proc_text.h"

namespace andweorc::runtime {
namespace {

// The access mode from fdinfo's "flags:" (octal), or -1.
int access_mode(int fd) {
  std::string info =
      read_proc_text(("/proc/self/fdinfo/" + std::to_string(fd)).c_str());
  size_t at = info.find("flags:");
  if (at == std::string::npos) return -1;
  return int(strtoul(info.c_str() + at + 6, nullptr, 8) & O_ACCMODE);
}

struct Fd {
  int fd;
  std::string target;  // readlink of /proc/self/fd/N
};

}  // namespace

ExistingFds classify_existing_fds() {
  ExistingFds counts;
  std::vector<Fd> fds;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      const int fd = atoi(e->d_name);
      if (fd == dirfd(dir) || andweorc_fd_is_ours(fd)) continue;
      char target[128];
      ssize_t n = readlink(("/proc/self/fd/" + std::string(e->d_name)).c_str(),
                           target, sizeof target - 1);
      if (n <= 0) continue;
      fds.push_back({fd, std::string(target, size_t(n))});
    }
    closedir(dir);
  }
  // Pipes: which inodes have a read end and a write end here.
  std::map<std::string, int> pipe_ends;  // inode -> bit 1 read, bit 2 write
  std::map<int, std::string> pipe_of;
  for (const Fd& f : fds) {
    if (f.target.rfind("pipe:", 0) != 0) continue;
    const int mode = access_mode(f.fd);
    if (mode == O_RDONLY) pipe_ends[f.target] |= 1;
    if (mode == O_WRONLY) pipe_ends[f.target] |= 2;
    if (mode == O_RDWR) pipe_ends[f.target] |= 3;
    pipe_of[f.fd] = f.target;
  }
  for (const Fd& f : fds) {
    bool internal = false;
    if (auto p = pipe_of.find(f.fd); p != pipe_of.end())
      internal = pipe_ends[p->second] == 3;
    else if (f.target == "anon_inode:[eventfd]")
      internal = true;
    if (internal) {
      andweorc_fd_mark(f.fd, 1);
    } else if (f.target.rfind("socket:", 0) == 0) {
      andweorc_fd_mark_peer(f.fd);
    }
    if (andweorc_fd_internal(f.fd)) ++counts.internal;
  }
  // Epoll sets last: whether each is internal depends on the marks above.
  for (const Fd& f : fds) {
    if (f.target != "anon_inode:[eventpoll]") continue;
    ++counts.epoll;
    andweorc_epoll_created(f.fd);
    std::string info =
        read_proc_text(("/proc/self/fdinfo/" + std::to_string(f.fd)).c_str());
    if (info.empty()) andweorc_epoll_added(f.fd, -1);  // unknown: outside
    for (size_t at = 0; (at = info.find("tfd:", at)) != std::string::npos;) {
      at += 4;
      andweorc_epoll_added(f.fd, int(strtol(info.c_str() + at, nullptr, 10)));
    }
  }
  return counts;
}

}  // namespace andweorc::runtime
