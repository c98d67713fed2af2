// ptrace_permission_test.cc: each cause that makes ptrace fail is named,
// with the setting that allows it, before the process is touched.
#include "attach/ptrace_permission.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace andweorc::attach {
namespace {

PtraceFacts allowed() {
  PtraceFacts f;
  f.pid = 4242;
  f.exists = true;
  f.target_uid[0] = f.target_uid[1] = f.target_uid[2] = 1000;
  f.our_uid = 1000;
  f.yama_scope = 0;
  return f;
}

bool says(const PtraceFacts& f, const std::string& part) {
  return ptrace_refusal(f).find(part) != std::string::npos;
}

TEST(PtracePermission, SameUserWithoutYamaIsAllowed) {
  EXPECT_EQ(ptrace_refusal(allowed()), "");
  PtraceFacts f = allowed();
  f.yama_scope = -1;  // no Yama
  EXPECT_EQ(ptrace_refusal(f), "");
}

TEST(PtracePermission, NamesEachCause) {
  PtraceFacts f = allowed();
  f.exists = false;
  EXPECT_TRUE(says(f, "no process 4242"));

  f = allowed();
  f.tracer_pid = 77;
  EXPECT_TRUE(says(f, "already traced by process 77"));

  f = allowed();
  f.target_uid[1] = 0;
  EXPECT_TRUE(says(f, "runs as uid 0"));
  EXPECT_TRUE(says(f, "CAP_SYS_PTRACE"));
  f.cap_sys_ptrace = true;
  EXPECT_EQ(ptrace_refusal(f), "");

  f = allowed();
  f.target_dumpable = false;
  EXPECT_TRUE(says(f, "not dumpable"));
  f.cap_sys_ptrace = true;
  EXPECT_EQ(ptrace_refusal(f), "");

  f = allowed();
  f.yama_scope = 1;
  EXPECT_TRUE(says(f, "kernel.yama.ptrace_scope = 1"));
  EXPECT_TRUE(says(f, "ptrace_scope=0"));
  f.is_descendant = true;
  EXPECT_EQ(ptrace_refusal(f), "");

  f = allowed();
  f.yama_scope = 2;
  EXPECT_TRUE(says(f, "kernel.yama.ptrace_scope = 2"));
  f.cap_sys_ptrace = true;
  EXPECT_EQ(ptrace_refusal(f), "");

  f = allowed();
  f.yama_scope = 3;
  f.cap_sys_ptrace = true;  // not even root
  EXPECT_TRUE(says(f, "ptrace_scope = 3"));

  f = allowed();
  f.is_thread = true;
  EXPECT_TRUE(says(f, "is a thread"));
}

TEST(PtracePermission, ReadsTheFactsOfAChild) {
  int hold[2];
  ASSERT_EQ(pipe(hold), 0);
  pid_t child = fork();
  if (child == 0) {
    close(hold[1]);
    char c;
    (void)!read(hold[0], &c, 1);
    _exit(0);
  }
  close(hold[0]);
  PtraceFacts f = read_ptrace_facts(child);
  EXPECT_TRUE(f.exists);
  EXPECT_TRUE(f.is_descendant);
  EXPECT_FALSE(f.is_self);
  EXPECT_EQ(f.tracer_pid, 0);
  EXPECT_EQ(f.target_uid[1], long(getuid()));
  EXPECT_EQ(ptrace_refusal(f), "");
  close(hold[1]);
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(read_ptrace_facts(int(getpid())).is_self);
}

}  // namespace
}  // namespace andweorc::attach
