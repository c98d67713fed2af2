// source_context_test.cc: source lines around a profiled line, missing and
// short files, lookup under a source root, long lines.
#include "report/source_context.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../profile/test_dir.h"

namespace andweorc::report {
namespace {

using profile::testing::TestDir;

void write(const std::string& path, int lines) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream out(path);
  for (int i = 1; i <= lines; ++i) out << "line " << i << "\r\n";
}

TEST(SourceContext, LinesAroundTheLine) {
  TestDir dir;
  write(dir.file("a.c"), 20);
  auto c = read_source_contexts(
      {{dir.file("a.c"), 10}, {dir.file("a.c"), 2}, {dir.file("a.c"), 20}}, 3);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].error, "");
  EXPECT_EQ(c[0].found_as, "");
  EXPECT_EQ(c[0].first_line, 7);
  ASSERT_EQ(c[0].lines.size(), 7u);
  EXPECT_EQ(c[0].lines[3], "line 10");  // '\r' dropped
  EXPECT_EQ(c[1].first_line, 1);
  EXPECT_EQ(c[1].lines.size(), 5u);
  EXPECT_EQ(c[2].first_line, 17);
  EXPECT_EQ(c[2].lines.back(), "line 20");
}

TEST(SourceContext, SaysWhyWhenThereAreNoLines) {
  TestDir dir;
  write(dir.file("short.c"), 3);
  auto c = read_source_contexts({{dir.file("missing.c"), 4},
                                 {dir.file("short.c"), 9},
                                 {"", 4},
                                 {dir.path(), 1}},
                                2);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].error, "source not readable here: No such file or directory");
  EXPECT_EQ(c[1].error, "the file has only 3 lines (edited since the run?)");
  EXPECT_EQ(c[2].error, "no source file is known for this line");
  EXPECT_EQ(c[3].error, "source not readable here: not a regular file");
  for (const auto& x : c) EXPECT_TRUE(x.lines.empty());
}

TEST(SourceContext, FindsRelativeAndMovedFilesUnderARoot) {
  TestDir dir;
  write(dir.file("proj/src/a.c"), 5);
  std::string root = dir.file("proj");
  auto c = read_source_contexts({{"../../src/a.c", 2},
                                 {"/elsewhere/ci/proj/src/a.c", 3},
                                 {"../../src/none.c", 1}},
                                1, {root});
  EXPECT_EQ(c[0].found_as, root + "/src/a.c");
  EXPECT_EQ(c[0].lines.size(), 3u);
  EXPECT_EQ(c[1].found_as, root + "/src/a.c");
  EXPECT_EQ(c[1].first_line, 2);
  EXPECT_NE(c[2].error, "");
}

TEST(SourceContext, LongLinesAreCutOnACodePoint) {
  TestDir dir;
  {
    std::ofstream out(dir.file("long.c"));
    out << std::string(kMaxSourceLineBytes - 1, 'x') << "\xC3\xA9tail\n";
  }
  auto c = read_source_contexts({{dir.file("long.c"), 1}}, 0);
  ASSERT_EQ(c[0].lines.size(), 1u);
  EXPECT_EQ(c[0].lines[0], std::string(kMaxSourceLineBytes - 1, 'x') + "...");
}

}  // namespace
}  // namespace andweorc::report
