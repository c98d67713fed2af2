// source_paths_test.cc: how reports show source paths: normalised lexically,
// relative to the user's source root or the files' common root.
#include "report/source_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace andweorc::report {
namespace {

TEST(NormalizePath, CollapsesSlashesDotsAndDotDots) {
  EXPECT_EQ(normalize_path("/build/libzstd-1.5.4+dfsg2//lib/compress/a.c"),
            "/build/libzstd-1.5.4+dfsg2/lib/compress/a.c");
  EXPECT_EQ(normalize_path("/b/p/programs/../lib/./x/../c.c"), "/b/p/lib/c.c");
  EXPECT_EQ(normalize_path("//a///b//"), "/a/b");
  EXPECT_EQ(normalize_path("./src/a.c"), "src/a.c");
}

TEST(NormalizePath, EdgesStayMeaningful) {
  EXPECT_EQ(normalize_path(""), "");
  EXPECT_EQ(normalize_path("/"), "/");
  EXPECT_EQ(normalize_path("/../a"), "/a");  // nothing above the root
  EXPECT_EQ(normalize_path("../../a/b.c"), "../../a/b.c");
  EXPECT_EQ(normalize_path("a/../../b.c"), "../b.c");
  EXPECT_EQ(normalize_path("a/.."), ".");
  EXPECT_EQ(normalize_path("."), ".");
  EXPECT_EQ(normalize_path("a.c"), "a.c");
}

TEST(SourcePaths, ShownRelativeToTheCommonRoot) {
  SourcePaths paths({"/b/zstd//lib/compress/zstd_double_fast.c",
                     "/b/zstd/programs/../lib/common/xxhash.h",
                     "/b/zstd/programs/fileio.c"});
  ASSERT_EQ(paths.roots().size(), 1u);
  EXPECT_EQ(paths.roots()[0], "/b/zstd/");
  EXPECT_EQ(paths.display("/b/zstd//lib/compress/zstd_double_fast.c"),
            "lib/compress/zstd_double_fast.c");
  EXPECT_EQ(paths.display("/b/zstd/programs/../lib/common/xxhash.h"),
            "lib/common/xxhash.h");
  EXPECT_EQ(paths.roots_text(), "/b/zstd/");
}

TEST(SourcePaths, SystemHeadersDoNotPullTheRootUp) {
  SourcePaths paths({"/home/u/p/src/a.c", "/home/u/p/src/b.c",
                     "/usr/include/x86_64-linux-gnu/bits/string_fortified.h",
                     ""});
  EXPECT_EQ(paths.roots(), std::vector<std::string>{"/home/u/p/src/"});
  EXPECT_EQ(paths.display("/home/u/p/src/a.c"), "a.c");
  // Outside every root: whole, but normalised.
  EXPECT_EQ(paths.display("/usr/include//stdio.h"), "/usr/include/stdio.h");
  EXPECT_EQ(paths.display(""), "");
}

TEST(SourcePaths, UserRootsComeFirstLongestFirst) {
  SourcePaths paths({"/w/proj/src/a.c", "/w/proj/vendor/lib/b.c", "/x/c.c"},
                    {"/w/proj/", "/w/proj//vendor/lib/", ".", ""});
  // The one file under no user root gets its directory as the auto root.
  EXPECT_EQ(paths.roots(), (std::vector<std::string>{"/w/proj/vendor/lib/",
                                                     "/w/proj/", "/x/"}));
  EXPECT_EQ(paths.display("/w/proj/src/a.c"), "src/a.c");
  EXPECT_EQ(paths.display("/w/proj/vendor/lib/b.c"), "b.c");
  EXPECT_EQ(paths.display("/x/c.c"), "c.c");
}

TEST(SourcePaths, UnclaimedFilesGetTheirOwnCommonRoot) {
  SourcePaths paths(
      {"/w/proj/src/a.c", "/opt/dep/include/d.h", "/opt/dep/src/d.c"},
      {"/w/proj"});
  EXPECT_EQ(paths.roots(), (std::vector<std::string>{"/w/proj/", "/opt/dep/"}));
  EXPECT_EQ(paths.display("/opt/dep/src/d.c"), "src/d.c");
  EXPECT_EQ(paths.roots_text(), "/w/proj/, /opt/dep/");
}

// As g++ records a build in programs/ of lib/ sources: relative to the
// compilation directory for some files, absolute for others.
TEST(SourcePaths, RelativePathsNextToAbsoluteOnesStayAsRecorded) {
  SourcePaths paths({"../lib/compress/../common/bits.h",
                     "../lib/compress/zstd_double_fast.c",
                     "/b/zstd/programs/fileio.c", "/b/zstd/programs/util.c"});
  EXPECT_EQ(paths.roots(), std::vector<std::string>{"/b/zstd/programs/"});
  EXPECT_EQ(paths.display("../lib/compress/../common/bits.h"),
            "../lib/common/bits.h");
  EXPECT_EQ(paths.display("/b/zstd/programs/fileio.c"), "fileio.c");
  // Only relative files: their common directory is still a root.
  SourcePaths relative({"src/a.c", "src/b.c"});
  EXPECT_EQ(relative.display("src/a.c"), "a.c");
}

TEST(SourcePaths, NoRootShowsNormalisedPaths) {
  SourcePaths none;
  EXPECT_TRUE(none.roots().empty());
  EXPECT_EQ(none.display("/a//b/../c.c"), "/a/c.c");
  // Files sharing nothing but "/": no root.
  SourcePaths apart({"/a/x.c", "/b/y.c"});
  EXPECT_TRUE(apart.roots().empty());
  EXPECT_EQ(apart.roots_text(), "");
}

TEST(SourcePaths, ARootIsAWholeDirectory) {
  SourcePaths paths({"/w/proj2/a.c"}, {"/w/proj"});
  EXPECT_EQ(paths.display("/w/proj2/a.c"), "a.c");  // the auto root /w/proj2/
  EXPECT_EQ(paths.roots()[0], "/w/proj/");
}

TEST(AbsoluteRoots, RelativeRootsAreResolvedAgainstTheWorkingDirectory) {
  std::string cwd = std::filesystem::current_path().string();
  std::vector<std::string> roots =
      absolute_roots({"/abs//dir/", "rel/../sub", ".", ""});
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0], "/abs/dir");
  EXPECT_EQ(roots[1], normalize_path(cwd + "/sub"));
}

}  // namespace
}  // namespace andweorc::report
