// injector_test.cc: a call made inside a child with ptrace returns the
// callee's result and leaves the child as it was: a child blocked in
// read() still gets its data (the system call is restarted, not failed
// with EINTR), and a child computing in registers still gets its answer.
#include "attach/injector.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "attach/runtime_calls.h"
#include "attach/target_symbols.h"

namespace andweorc::attach {
namespace {

uint64_t getpid_in(pid_t pid, std::string* error) {
  symbols::ProcessMaps maps = target_maps(pid);
  std::string libc = mapped_module(maps, "libc.so.");
  auto fn = symbol_address(maps, libc, "getpid", error);
  if (!fn) return 0;
  Injector in(pid);
  if (!in.seize(5000, error)) return 0;
  auto r = in.call(*fn, 0, 0, error);
  if (!in.release(error)) return 0;
  return r ? *r : 0;
}

TEST(Injector, CallsIntoAChildBlockedInReadAndTheReadGoesOn) {
  int data[2];
  ASSERT_EQ(pipe(data), 0);
  pid_t child = fork();
  if (child == 0) {
    close(data[1]);
    char c = 0;
    ssize_t n = read(data[0], &c, 1);  // interrupted by the visit
    _exit(n == 1 && c == 'x' ? 42 : 1);
  }
  close(data[0]);
  usleep(50000);  // let it block in read
  std::string error;
  EXPECT_EQ(getpid_in(child, &error), uint64_t(child)) << error;
  ASSERT_EQ(write(data[1], "x", 1), 1);
  close(data[1]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

// Busy in its own code: sums in general and vector registers, so a
// register not restored after the visit changes the result.
__attribute__((noinline)) int busy_child(int stop_fd) {
  uint64_t s = 0;
  double d = 0;
  uint64_t n = 0;
  for (;;) {
    for (uint64_t k = 0; k < 1000000; ++k) {
      s += k * k;
      d += double(k) * 0.5;
    }
    ++n;
    char c;
    if (read(stop_fd, &c, 1) == 0) break;  // non-blocking: EOF ends it
  }
  uint64_t per = 0;
  for (uint64_t k = 0; k < 1000000; ++k) per += k * k;
  double per_d = 0;
  for (uint64_t k = 0; k < 1000000; ++k) per_d += double(k) * 0.5;
  return s == per * n && d == per_d * double(n) ? 42 : 1;
}

TEST(Injector, CallsIntoAChildComputingAndItsResultHolds) {
  int stop[2];
  ASSERT_EQ(pipe2(stop, O_NONBLOCK), 0);
  pid_t child = fork();
  if (child == 0) {
    close(stop[1]);
    _exit(busy_child(stop[0]));
  }
  close(stop[0]);
  usleep(50000);
  std::string error;
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(getpid_in(child, &error), uint64_t(child)) << error;
  close(stop[1]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
}

}  // namespace
}  // namespace andweorc::attach
