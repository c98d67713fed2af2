// source_text_test.cc: reading and normalizing source lines.
#include "compare/source_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "report/source_context.h"

namespace andweorc::compare {
namespace {

TEST(SourceText, NormalizesBlanks) {
  EXPECT_EQ(normalize_source("  a  =\tb ;  "), "a = b ;");
  EXPECT_EQ(normalize_source("\t\t"), "");
}

TEST(SourceText, ReadsLinesOnceAndMapsPrefixes) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("andweorc_source_text_" + std::to_string(::getpid()));
  fs::create_directories(dir / "new");
  std::ofstream(dir / "new" / "x.c") << "int a;\n\n  return  a;\n";
  SourceText s("/old/tree=" + (dir / "new").string());
  EXPECT_EQ(s.line("/old/tree/x.c", 1), "int a;");
  EXPECT_EQ(s.line("/old/tree/x.c", 2), std::nullopt);  // blank
  EXPECT_EQ(s.line("/old/tree/x.c", 3), "return a;");
  EXPECT_EQ(s.line("/old/tree/x.c", 4), std::nullopt);
  EXPECT_EQ(s.line("/old/tree/x.c", 0), std::nullopt);
  EXPECT_EQ(s.line("/nowhere/x.c", 1), std::nullopt);
  // Cached: deleting the file does not change the answer.
  fs::remove_all(dir);
  EXPECT_EQ(s.line("/old/tree/x.c", 1), "int a;");
}

TEST(SourceText, RelativeBuildPathsAreTriedFromTheCurrentDirectory) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("andweorc_source_rel_" + std::to_string(::getpid()));
  fs::create_directories(dir / "src");
  std::ofstream(dir / "src" / "y.c") << "y();\n";
  fs::path old = fs::current_path();
  fs::current_path(dir);
  SourceText s;
  EXPECT_EQ(s.line("../../src/y.c", 1), "y();");
  fs::current_path(old);
  fs::remove_all(dir);
}

// `diff` and the HTML report find a file by one rule: a checkout in another
// place ("/home/ci/proj/src/z.c") is read as its suffix under the working
// directory by both, never found by one and missed by the other.
TEST(SourceText, FindsFilesByTheHtmlReportsRule) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("andweorc_source_rule_" + std::to_string(::getpid()));
  fs::create_directories(dir / "src");
  std::ofstream(dir / "src" / "z.c") << "z();\n";
  fs::path old = fs::current_path();
  fs::current_path(dir);
  const std::string recorded = "/home/ci/proj/src/z.c";
  SourceText s;
  EXPECT_EQ(s.line(recorded, 1), "z();");
  std::vector<report::SourceContext> c =
      report::read_source_contexts({{recorded, 1}}, 0, {"."});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].found_as, "src/z.c");
  EXPECT_EQ(c[0].error, "");
  fs::current_path(old);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace andweorc::compare
