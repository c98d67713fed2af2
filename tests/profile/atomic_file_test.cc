// atomic_file_test.cc: write_file_atomic creates, replaces, and cleans up.
#include "profile/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>
#include <string>

#include "test_dir.h"

namespace andweorc::profile {
namespace {

using testing::slurp;
using testing::spit;
using testing::TestDir;

TEST(AtomicFile, CreatesNewFile) {
  TestDir dir;
  ASSERT_FALSE(dir.path().empty());
  std::string error;
  ASSERT_TRUE(write_file_atomic(dir.file("p.json"), "hello\n", &error))
      << error;
  EXPECT_EQ(slurp(dir.file("p.json")), "hello\n");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"p.json"});
}

TEST(AtomicFile, ReplacesExistingFileAndLeavesNoTemp) {
  TestDir dir;
  spit(dir.file("p.json"), std::string(10000, 'x'));
  std::string error;
  ASSERT_TRUE(write_file_atomic(dir.file("p.json"), "short", &error)) << error;
  EXPECT_EQ(slurp(dir.file("p.json")), "short");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"p.json"});
}

TEST(AtomicFile, WritesEmptyAndLargeContents) {
  TestDir dir;
  ASSERT_TRUE(write_file_atomic(dir.file("empty"), "", nullptr));
  EXPECT_EQ(slurp(dir.file("empty")), "");
  std::string big(5 << 20, 'a');
  big[12345] = '\0';
  ASSERT_TRUE(write_file_atomic(dir.file("big"), big, nullptr));
  EXPECT_EQ(slurp(dir.file("big")), big);
}

TEST(AtomicFile, RelativePathUsesCurrentDirectory) {
  TestDir dir;
  std::string old = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  bool ok = write_file_atomic("rel.json", "r", nullptr);
  std::filesystem::current_path(old);
  ASSERT_TRUE(ok);
  EXPECT_EQ(slurp(dir.file("rel.json")), "r");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"rel.json"});
}

TEST(AtomicFile, ModeFollowsUmask) {
  TestDir dir;
  mode_t old = umask(027);
  bool ok = write_file_atomic(dir.file("m"), "m", nullptr);
  umask(old);
  ASSERT_TRUE(ok);
  struct stat st;
  ASSERT_EQ(stat(dir.file("m").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(AtomicFile, MissingDirectoryFails) {
  TestDir dir;
  std::string path = dir.file("no/such/dir/p.json");
  std::string error;
  EXPECT_FALSE(write_file_atomic(path, "x", &error));
  EXPECT_EQ(error, "cannot write " + path + ": No such file or directory");
  EXPECT_TRUE(dir.entries().empty());
}

TEST(AtomicFile, ParentIsAFileFails) {
  TestDir dir;
  spit(dir.file("plain"), "x");
  std::string path = dir.file("plain/p.json");
  std::string error;
  EXPECT_FALSE(write_file_atomic(path, "x", &error));
  EXPECT_EQ(error, "cannot write " + path + ": Not a directory");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"plain"});
}

TEST(AtomicFile, TargetIsADirectoryFailsAndRemovesTemp) {
  // The temp file is created and written; the rename fails. Nothing may be
  // left behind and the directory must be untouched.
  TestDir dir;
  std::filesystem::create_directory(dir.file("target"));
  std::string error;
  EXPECT_FALSE(write_file_atomic(dir.file("target"), "x", &error));
  EXPECT_EQ(error, "cannot write " + dir.file("target") + ": Is a directory");
  EXPECT_EQ(dir.entries(), std::set<std::string>{"target"});
  EXPECT_TRUE(std::filesystem::is_directory(dir.file("target")));
}

TEST(AtomicFile, EmptyPathFails) {
  std::string error;
  EXPECT_FALSE(write_file_atomic("", "x", &error));
  EXPECT_EQ(error, "cannot write: the path is empty");
}

}  // namespace
}  // namespace andweorc::profile
