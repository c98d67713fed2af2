// The runtime must not change the state a program observes about itself
// (timer slack, scheduling, affinity, signal mask, errno, umask, cwd,
// rlimits, fd flags): programs/state_probe prints it, natively and with
// libandweorc.so preloaded and profiling, and the outputs must be identical.
#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace {

std::string run(const std::string& env) {
  std::string cmd = env + " " STATE_PROBE;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return "popen failed";
  std::string out;
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  if (status != 0) out += "exit status " + std::to_string(status);
  return out;
}

TEST(ProgramState, RuntimeChangesNothingTheProgramCanSee) {
  char dir[] = "/tmp/andweorc-state-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string native = run("env -u LD_PRELOAD -u ANDWEORC_DATA_DIR");
  std::string profiled =
      run(std::string("env LD_PRELOAD=") + ANDWEORC_RUNTIME_LIB +
          " ANDWEORC_DATA_DIR=" + dir);
  ASSERT_NE(native.find("timerslack="), std::string::npos) << native;
  // The runtime did start: it wrote its raw file.
  bool wrote = false;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    wrote = wrote || e.is_regular_file();
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(wrote) << "the runtime did not profile the probe";
  EXPECT_EQ(native, profiled);
}

}  // namespace
