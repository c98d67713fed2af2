// attach_fds_test.cc: descriptors open before an attach get the marks the
// wrappers would have given them when they were made (attach_fds.h).
#include "runtime/attach_fds.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/internal_fds.h"

// What internal_fds.c asks of the process tree: a tree of one process.
extern "C" int andweorc_tree_has_pid(int pid) { return pid == getpid(); }
extern "C" int andweorc_tree_exec_seen(void) { return 0; }
extern "C" int andweorc_net_peer_in_tree(int) { return 0; }
extern "C" int andweorc_net_peer_unread(int) { return -1; }
// And of the runtime (runtime.cc): one process, no raw file to guard.
extern "C" int andweorc_is_original_process(void) { return 1; }
extern "C" int andweorc_io_lock_bounded(void) { return 1; }
extern "C" void andweorc_io_unlock(void) {}

namespace andweorc::runtime {
namespace {

TEST(AttachFds, ExistingDescriptorsAreMarkedAsTheWrappersWould) {
  int both[2], half[2], pair[2];
  ASSERT_EQ(pipe(both), 0);
  ASSERT_EQ(pipe(half), 0);
  close(half[1]);  // its writer is elsewhere (say, a parent)
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  const int efd = eventfd(0, 0);
  const int file = open("/proc/self/stat", O_RDONLY);
  ASSERT_GE(efd, 0);
  ASSERT_GE(file, 0);
  // An epoll set of internal descriptors only, and one with a file too.
  const int inner = epoll_create1(0), outer = epoll_create1(0);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ASSERT_EQ(epoll_ctl(inner, EPOLL_CTL_ADD, both[0], &ev), 0);
  ASSERT_EQ(epoll_ctl(inner, EPOLL_CTL_ADD, efd, &ev), 0);
  ASSERT_EQ(epoll_ctl(outer, EPOLL_CTL_ADD, pair[0], &ev), 0);
  ASSERT_EQ(epoll_ctl(outer, EPOLL_CTL_ADD, half[0], &ev), 0);
  // Nothing was made through a wrapper: no marks yet, and an epoll set
  // never seen made counts as internal until told otherwise.
  ASSERT_FALSE(andweorc_fd_internal(both[0]));
  ASSERT_TRUE(andweorc_epoll_internal(outer));

  ExistingFds counts = classify_existing_fds();

  EXPECT_TRUE(andweorc_fd_internal(both[0]));
  EXPECT_TRUE(andweorc_fd_internal(both[1]));
  EXPECT_FALSE(andweorc_fd_internal(half[0])) << "its writer is not here";
  EXPECT_TRUE(andweorc_fd_internal(pair[0])) << "its peer is this process";
  EXPECT_TRUE(andweorc_fd_internal(pair[1]));
  EXPECT_TRUE(andweorc_fd_internal(efd));
  EXPECT_FALSE(andweorc_fd_internal(file));
  EXPECT_TRUE(andweorc_epoll_internal(inner));
  EXPECT_FALSE(andweorc_epoll_internal(outer)) << "it watches half[0]";
  EXPECT_GE(counts.internal, 5);
  EXPECT_GE(counts.epoll, 2);
  for (int fd :
       {both[0], both[1], half[0], pair[0], pair[1], efd, file, inner, outer})
    close(fd);
}

}  // namespace
}  // namespace andweorc::runtime
