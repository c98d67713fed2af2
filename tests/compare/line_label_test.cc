// line_label_test.cc: shortened names keep their line numbers.
#include "compare/line_label.h"

#include <gtest/gtest.h>

#include <set>

#include "report/display.h"

namespace andweorc::compare {
namespace {

TEST(ElideMiddle, KeepsBothEnds) {
  EXPECT_EQ(elide_middle("short", 10), "short");
  std::string s =
      elide_middle("ZSTD_compressBlock_doubleFast_noDict_generic", 24);
  EXPECT_EQ(report::display_width(s), 24u);
  EXPECT_EQ(s.rfind("ZSTD_", 0), 0u) << s;
  EXPECT_NE(s.find("..."), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 7), "generic") << s;
  EXPECT_EQ(elide_middle("abcdefgh", 3), "abc");
  // Multi-byte characters count as one column each and are not split.
  std::string u = elide_middle(
      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 6);
  EXPECT_EQ(report::display_width(u), 6u);
}

TEST(LineLabel, LineNumberSurvivesLongFunctionNames) {
  // The case: six lines of one long-named function used to read
  // "...mpressBlock_doubleFast_noDict_generic" six times.
  const std::string fn =
      "ZSTD_compressBlock_doubleFast_noDict_generic(ZSTD_MatchState_t*, "
      "SeqStore_t*, unsigned int*, void const*, unsigned long, unsigned int)";
  std::set<std::string> labels;
  for (int line : {101, 115, 130, 1021, 1034, 1050}) {
    std::string l =
        line_label("/src/lib/compress/zstd_double_fast.c", line, fn, 40);
    EXPECT_LE(report::display_width(l), 40u) << l;
    EXPECT_EQ(l.rfind("zstd_double_fast.c:" + std::to_string(line) + " ", 0),
              0u)
        << l;
    labels.insert(l);
  }
  EXPECT_EQ(labels.size(), 6u);
}

TEST(LineLabel, TooLongLocationCutsTheFileNameNotTheLine) {
  std::string l = line_label("/x/a_very_long_generated_file_name_for_tests.cc",
                             12345, "f", 20);
  EXPECT_EQ(report::display_width(l), 20u);
  EXPECT_EQ(l.substr(l.size() - 6), ":12345") << l;
}

TEST(LineLabel, FunctionRowsAndShortNames) {
  EXPECT_EQ(line_label("/src/demo.c", 42, "stage_a", 40), "demo.c:42 stage_a");
  EXPECT_EQ(line_label("/src/demo.c", 42, "", 40), "demo.c:42");
  EXPECT_EQ(line_label("", 7, "", 40), "?:7");
  EXPECT_EQ(line_label("/src/demo.c", 0, "stage_a", 40), "stage_a (demo.c)");
  // Templates and parameters are collapsed before anything is cut.
  EXPECT_EQ(line_label("/s/v.h", 9,
                       "std::vector<int, A<int> >::push(int const&)", 40),
            "v.h:9 std::vector<...>::push(...)");
}

}  // namespace
}  // namespace andweorc::compare
