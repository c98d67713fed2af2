// line_matching_test.cc: the matching rule of line_matching.h.
#include "compare/line_matching.h"

#include <gtest/gtest.h>

namespace andweorc::compare {
namespace {

LineKey key(std::string file, int line, std::string fn,
            std::optional<std::string> text) {
  return LineKey{std::move(file), line, std::move(fn), "line", std::move(text)};
}

TEST(LineMatching, ShiftedLineMatchesBySourceText) {
  std::vector<LineKey> base = {key("/a/x.c", 10, "f", "a = b;"),
                               key("/a/x.c", 12, "f", "c = d;")};
  std::vector<LineKey> next = {key("/b/x.c", 15, "f", "c = d;"),
                               key("/b/x.c", 13, "f", "a = b;")};
  Matching m = match_lines(base, next);
  EXPECT_EQ(m.base_of_new, (std::vector<int>{1, 0}));
  EXPECT_EQ(m.kind_of_new[0], MatchKind::kSource);
  EXPECT_EQ(m.kind_of_new[1], MatchKind::kSource);
}

TEST(LineMatching, SameTextTwiceTakesTheNearestLine) {
  std::vector<LineKey> base = {key("x.c", 10, "f", "i++;"),
                               key("x.c", 40, "f", "i++;")};
  std::vector<LineKey> next = {key("x.c", 43, "f", "i++;")};
  EXPECT_EQ(match_lines(base, next).base_of_new, (std::vector<int>{1}));
}

TEST(LineMatching, EditedLineIsNotMatched) {
  std::vector<LineKey> base = {key("x.c", 10, "f", "slow(x);")};
  std::vector<LineKey> next = {key("x.c", 10, "f", "fast(x);")};
  EXPECT_EQ(match_lines(base, next).base_of_new, (std::vector<int>{-1}));
}

TEST(LineMatching, UnknownTextFallsBackToFunctionThenLocation) {
  std::vector<LineKey> base = {key("/a/x.c", 10, "f", std::nullopt),
                               key("/a/y.c", 7, "", std::nullopt)};
  std::vector<LineKey> next = {key("/b/y.c", 7, "", "q();"),
                               key("/b/x.c", 14, "f", std::nullopt)};
  Matching m = match_lines(base, next);
  EXPECT_EQ(m.base_of_new, (std::vector<int>{1, 0}));
  EXPECT_EQ(m.kind_of_new[0], MatchKind::kLocation);
  EXPECT_EQ(m.kind_of_new[1], MatchKind::kFunction);
}

TEST(LineMatching, DifferentFunctionOrGranularityNeverMatches) {
  std::vector<LineKey> base = {key("x.c", 10, "f", "a;")};
  std::vector<LineKey> next = {key("x.c", 10, "g", "a;")};
  // Different function, same text and place: only "location" could match
  // it, and the texts are equal, so it does.
  EXPECT_EQ(match_lines(base, next).kind_of_new[0], MatchKind::kLocation);
  next[0].granularity = "function";
  EXPECT_EQ(match_lines(base, next).base_of_new, (std::vector<int>{-1}));
}

TEST(LineMatching, EachBaseLineMatchesOnce) {
  std::vector<LineKey> base = {key("x.c", 10, "f", "a;")};
  std::vector<LineKey> next = {key("x.c", 10, "f", "a;"),
                               key("x.c", 11, "f", "a;")};
  EXPECT_EQ(match_lines(base, next).base_of_new, (std::vector<int>{0, -1}));
}

TEST(LineMatching, FunctionlessLinesNeedTheSameFileForText) {
  std::vector<LineKey> base = {key("x.c", 10, "", "}")};
  std::vector<LineKey> next = {key("y.c", 10, "", "}")};
  EXPECT_EQ(match_lines(base, next).base_of_new, (std::vector<int>{-1}));
}

}  // namespace
}  // namespace andweorc::compare
