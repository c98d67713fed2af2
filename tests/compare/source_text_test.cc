// source_text_test.cc: reading and normalizing source lines.
#include "compare/source_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace andweorc::compare
