// attach_settings_test.cc: the runtime reads `andweorc attach`'s settings
// from the file, and then never from the process's environment.
#include "runtime/attach_settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

namespace andweorc::runtime {
namespace {

TEST(AttachSettings, FileReplacesTheEnvironment) {
  setenv("ANDWEORC_TEST_ONLY_IN_ENV", "env", 1);
  const char* before = runtime_setting("ANDWEORC_TEST_ONLY_IN_ENV");
  ASSERT_NE(before, nullptr);
  EXPECT_STREQ(before, "env");

  char path[] = "/tmp/andweorc-settings-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const char raw[] =
      "ANDWEORC_DATA_DIR=/tmp/x\0ANDWEORC_BINARY_SCOPE=MAIN\n"
      "*libfoo*\n\0ANDWEORC_DATA=not the dir\0";
  std::string text(raw, sizeof raw - 1);
  ASSERT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  close(fd);
  ASSERT_TRUE(attach_settings_load(path));
  EXPECT_STREQ(runtime_setting("ANDWEORC_DATA_DIR"), "/tmp/x");
  EXPECT_STREQ(runtime_setting("ANDWEORC_BINARY_SCOPE"), "MAIN\n*libfoo*\n");
  EXPECT_STREQ(runtime_setting("ANDWEORC_DATA"), "not the dir");
  EXPECT_EQ(runtime_setting("ANDWEORC_DATA_"), nullptr);
  // Not consulted once a file is loaded: the process's environment is not
  // the tool's.
  EXPECT_EQ(runtime_setting("ANDWEORC_TEST_ONLY_IN_ENV"), nullptr);
  unlink(path);
}

TEST(AttachSettings, UnreadableOrEmptyFileIsRefused) {
  EXPECT_FALSE(attach_settings_load("/nonexistent/andweorc.settings"));
  char path[] = "/tmp/andweorc-settings-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_FALSE(attach_settings_load(path));
  unlink(path);
  // Back to the environment after a refused load.
  setenv("ANDWEORC_TEST_ONLY_IN_ENV", "env", 1);
  ASSERT_NE(runtime_setting("ANDWEORC_TEST_ONLY_IN_ENV"), nullptr);
}

}  // namespace
}  // namespace andweorc::runtime
