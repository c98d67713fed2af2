// attach_fds.h: the marks the descriptor wrappers would have made
// (internal_fds.h), for descriptors a process opened before `andweorc
// attach` put the wrappers in place.
#ifndef ANDWEORC_RUNTIME_ATTACH_FDS_H_
#define ANDWEORC_RUNTIME_ATTACH_FDS_H_

namespace andweorc::runtime {

struct ExistingFds {
  int internal = 0;  // pipes, eventfds and sockets that lead to this process
  int epoll = 0;     // epoll sets, with what each watches
};

// Reads /proc/self/fd and /proc/self/fdinfo: a pipe is internal when both
// its read and its write end are open here; an eventfd always (as when
// made); a socket when its peer is this process (andweorc_fd_mark_peer);
// an epoll set is internal while everything it watches is. Not
// signal-safe (opendir).
ExistingFds classify_existing_fds();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_ATTACH_FDS_H_
