// line_label_test.cc: shortened names keep their line numbers.
#include "compare/line_label.h"

#include <gtest/gtest.h>

#include <set>

#include "report/display.h"

namespace andweorc::compare {
namespace {

// Paths as a diff shows them: relative to the files' common directory.
std::string label(const std::string& file, int line, const std::string& fn,
                  size_t width) {
  return line_label(report::SourcePaths({file}), file, line, fn, width);
}

TEST(LineLabel, LineNumberSurvivesLongFunctionNames) {
  // The case: six lines of one long-named function used to read
  // "...mpressBlock_doubleFast_noDict_generic" six times.
  const std::string fn =
      "ZSTD_compressBlock_doubleFast_noDict_generic(ZSTD_MatchState_t*, "
      "SeqStore_t*, unsigned int*, void const*, unsigned long, unsigned int)";
  std::set<std::string> labels;
  for (int line : {101, 115, 130, 1021, 1034, 1050}) {
    std::string l = label("/src/lib/compress/zstd_double_fast.c", line, fn, 40);
    EXPECT_LE(report::display_width(l), 40u) << l;
    EXPECT_EQ(l.rfind("zstd_double_fast.c:" + std::to_string(line) + " ", 0),
              0u)
        << l;
    labels.insert(l);
  }
  EXPECT_EQ(labels.size(), 6u);
}

TEST(LineLabel, TooLongLocationCutsTheFileNameNotTheLine) {
  std::string l =
      label("/x/a_very_long_generated_file_name_for_tests.cc", 12345, "f", 20);
  EXPECT_EQ(report::display_width(l), 20u);
  EXPECT_EQ(l.substr(l.size() - 6), ":12345") << l;
}

TEST(LineLabel, FunctionRowsAndShortNames) {
  EXPECT_EQ(label("/src/demo.c", 42, "stage_a", 40), "demo.c:42 stage_a");
  EXPECT_EQ(label("/src/demo.c", 42, "", 40), "demo.c:42");
  EXPECT_EQ(label("", 7, "", 40), "?:7");
  EXPECT_EQ(label("/src/demo.c", 0, "stage_a", 40), "stage_a (demo.c)");
  // Templates and parameters are collapsed before anything is cut.
  EXPECT_EQ(
      label("/s/v.h", 9, "std::vector<int, A<int> >::push(int const&)", 40),
      "v.h:9 std::vector<...>::push(...)");
}

// Two files with one base name in two folders used to read alike
// ("a.c:3 f" twice); they are shown relative to their common directory.
TEST(LineLabel, SameBaseNameInTwoFoldersStaysApart) {
  report::SourcePaths paths({"/p/lib/a.c", "/p/test/a.c"});
  EXPECT_EQ(line_label(paths, "/p/lib/a.c", 3, "f", 40), "lib/a.c:3 f");
  EXPECT_EQ(line_label(paths, "/p/test/a.c", 3, "f", 40), "test/a.c:3 f");
}

// Function names are cut by the reports' one rule (report::fit_middle).
TEST(LineLabel, CutsNamesLikeTheReports) {
  std::string fn = "ZSTD_compressBlock_doubleFast_noDict_generic";
  std::string l = label("/src/z.c", 7, fn, 30);
  EXPECT_EQ(l, "z.c:7 " + report::fit_middle(fn, 30 - 6));
}

}  // namespace
}  // namespace andweorc::compare
