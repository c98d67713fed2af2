// exec_check_test.cc: which images the loader will not preload the runtime
// into (runtime/exec_check.h), on real files: a dynamic program, a static
// one, scripts, a set-user-ID copy, a 32-bit header, the loader itself.
#include "runtime/exec_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

// exec_check_note's collaborators in the runtime; not called here.
namespace andweorc::runtime {
bool runtime_started_by_tool() { return false; }
const char* runtime_library_name() { return "libandweorc.so"; }
void runtime_write_note_bounded(const char*) {}
}  // namespace andweorc::runtime

namespace {

using andweorc::runtime::exec_resolve_path;
using andweorc::runtime::exec_unprofiled_reason;

class ExecCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/andweorc-exec-check-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  // An environment as `andweorc run` gives the program, minus `drop`.
  std::vector<char*> env(const std::string& drop = "") {
    strings_ = {"PATH=/usr/bin:/bin",
                "LD_PRELOAD=/opt/x/lib/libandweorc.so:/usr/lib/libother.so",
                "ANDWEORC_DATA_DIR=/tmp/d"};
    std::vector<char*> e;
    for (auto& s : strings_)
      if (drop.empty() || s.rfind(drop + "=", 0) != 0) e.push_back(s.data());
    e.push_back(nullptr);
    return e;
  }
  std::string write(const std::string& name, const std::string& bytes,
                    mode_t mode) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    chmod(path.c_str(), mode);
    return path;
  }
  static std::string reason(const std::string& path, std::vector<char*> e) {
    const char* r =
        exec_unprofiled_reason(path.c_str(), e.data(), "libandweorc.so");
    return r == nullptr ? "" : r;
  }
  std::string dir_;
  std::vector<std::string> strings_;
};

TEST_F(ExecCheck, ADynamicProgramWithTheToolsEnvironmentIsProfiled) {
  EXPECT_EQ(reason("/bin/sh", env()), "");
  EXPECT_EQ(reason("/usr/bin/env", env()), "");
}

TEST_F(ExecCheck, AStaticProgramIsNot) {
  EXPECT_NE(reason(STATIC_CHILD, env()).find("statically linked"),
            std::string::npos);
}

TEST_F(ExecCheck, AnEnvironmentWithoutThePreloadOrTheDataDirectoryIsNot) {
  EXPECT_NE(reason("/bin/sh", env("LD_PRELOAD")).find("no LD_PRELOAD"),
            std::string::npos);
  EXPECT_NE(
      reason("/bin/sh", env("ANDWEORC_DATA_DIR")).find("no ANDWEORC_DATA_DIR"),
      std::string::npos);
  // Another library of the same directory is not ours.
  strings_ = {"LD_PRELOAD=/opt/x/lib/libandweorc.so.bak",
              "ANDWEORC_DATA_DIR=/tmp/d"};
  std::vector<char*> e = {strings_[0].data(), strings_[1].data(), nullptr};
  EXPECT_NE(reason("/bin/sh", e).find("no LD_PRELOAD"), std::string::npos);
  // An empty environment (execve with envp NULL).
  EXPECT_NE(
      std::string(exec_unprofiled_reason("/bin/sh", nullptr, "libandweorc.so"))
          .find("no LD_PRELOAD"),
      std::string::npos);
}

TEST_F(ExecCheck, AScriptIsJudgedByItsInterpreter) {
  std::string sh = write("a.sh", "#!/bin/sh\nexit 0\n", 0755);
  EXPECT_EQ(reason(sh, env()), "");
  std::string st =
      write("b.sh", std::string("#! ") + STATIC_CHILD + " -x\n", 0755);
  EXPECT_NE(reason(st, env()).find("statically linked"), std::string::npos);
}

TEST_F(ExecCheck, A32BitProgramIsNot) {
  std::string elf =
      "\x7f"
      "ELF";
  elf += '\x01';  // ELFCLASS32
  elf += std::string(60, '\0');
  EXPECT_NE(reason(write("old", elf, 0755), env()).find("32-bit"),
            std::string::npos);
}

TEST_F(ExecCheck, TheLoaderRunAsAProgramIsProfiled) {
  // ld.so PROG loads PROG with LD_PRELOAD, though it has no PT_INTERP.
  const char* loader = "/lib64/ld-linux-x86-64.so.2";
  if (access(loader, R_OK) != 0) GTEST_SKIP() << "no " << loader;
  EXPECT_EQ(reason(loader, env()), "");
}

TEST_F(ExecCheck, ASetUserIdProgramOfAnotherUserIsNot) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a file away";
  std::string copy = dir_ + "/su";
  ASSERT_EQ(std::system(("cp /bin/true " + copy).c_str()), 0);
  ASSERT_EQ(chown(copy.c_str(), 65534, 65534), 0);
  ASSERT_EQ(chmod(copy.c_str(), 04755), 0);
  EXPECT_NE(reason(copy, env()).find("set-user-ID"), std::string::npos);
  ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
  EXPECT_EQ(reason(copy, env()), "");
}

TEST_F(ExecCheck, AnUnreadableOrMissingFileIsLeftToExec) {
  EXPECT_EQ(reason(dir_ + "/none", env()), "");
}

TEST_F(ExecCheck, ResolvesAFileAsExecvpDoes) {
  char out[4096];
  ASSERT_TRUE(exec_resolve_path("sh", out, sizeof out));
  EXPECT_EQ(access(out, X_OK), 0);
  EXPECT_EQ(std::string(out).substr(std::string(out).size() - 3), "/sh");
  EXPECT_FALSE(exec_resolve_path("no-such-program-andweorc", out, sizeof out));
  ASSERT_TRUE(exec_resolve_path("./x/y", out, sizeof out));
  EXPECT_STREQ(out, "./x/y");
}

}  // namespace
