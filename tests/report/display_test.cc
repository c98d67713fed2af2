// display_test.cc: the text report's formatting primitives.
#include "report/display.h"

#include <gtest/gtest.h>

namespace andweorc::report {
namespace {

TEST(Display, FormatCount) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_count(18446744073709551615ull),
            "18,446,744,073,709,551,615");
}

TEST(Display, FormatShare) {
  EXPECT_EQ(format_share(0), "0.0%");
  EXPECT_EQ(format_share(0.0001), "<0.1%");
  EXPECT_EQ(format_share(0.0005), "0.1%");
  EXPECT_EQ(format_share(0.4213), "42.1%");
  EXPECT_EQ(format_share(1), "100.0%");
}

TEST(Display, FormatPeriod) {
  EXPECT_EQ(format_period(500), "500 ns");
  EXPECT_EQ(format_period(250000), "250 us");
  EXPECT_EQ(format_period(1000000), "1 ms");
  EXPECT_EQ(format_period(1500000), "1.5 ms");
  EXPECT_EQ(format_period(1234567), "1.235 ms");
  EXPECT_EQ(format_period(2000000000), "2 s");
}

TEST(Display, FormatSeconds) {
  EXPECT_EQ(format_seconds(2.5), "2.50 s");
  EXPECT_EQ(format_seconds(0.004), "0.00 s");
  EXPECT_EQ(format_seconds(125), "2 min 5.0 s");
  EXPECT_EQ(format_seconds(-1), "0.00 s");
}

TEST(Display, ShellJoin) {
  EXPECT_EQ(shell_join({"./a", "--n=3", "/x/y.txt"}), "./a --n=3 /x/y.txt");
  EXPECT_EQ(shell_join({"echo", "a b", "", "it's", "$HOME"}),
            "echo 'a b' '' 'it'\\''s' '$HOME'");
}

TEST(Display, WidthsCountCodePoints) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("ü∑x"), 3u);
  EXPECT_EQ(pad_right("ü", 3), "ü  ");
  EXPECT_EQ(pad_left("7", 3), "  7");
  EXPECT_EQ(pad_right("toolong", 3), "toolong");
}

TEST(Display, FitKeepsStartOrEnd) {
  EXPECT_EQ(fit_right("abcdef", 6), "abcdef");
  EXPECT_EQ(fit_right("abcdef", 5), "ab...");
  EXPECT_EQ(fit_left("abcdef", 5), "...ef");
  EXPECT_EQ(fit_right("abcdef", 2), "..");
  // Never splits a code point.
  EXPECT_EQ(fit_right("üüüüü", 4), "ü...");
  EXPECT_EQ(fit_left("üüüüü", 4), "...ü");
}

TEST(Display, CollapseTemplates) {
  EXPECT_EQ(collapse_templates("main"), "main");
  EXPECT_EQ(collapse_templates("std::vector<int, std::allocator<int>>::"
                               "push_back(int const&)"),
            "std::vector<...>::push_back(int const&)");
  EXPECT_EQ(collapse_templates("f<A<B>>(C<D>)"), "f<...>(C<...>)");
  EXPECT_EQ(collapse_templates("operator<<(std::ostream&, X<int> const&)"),
            "operator<<(std::ostream&, X<...> const&)");
  EXPECT_EQ(collapse_templates("Foo::operator->()"), "Foo::operator->()");
  EXPECT_EQ(collapse_templates("bool operator< <T>(T, T)"),
            "bool operator< <...>(T, T)");
  EXPECT_EQ(collapse_templates("broken<"), "broken<");
  EXPECT_EQ(collapse_templates("broken>"), "broken>");
}

TEST(Display, CollapseParams) {
  EXPECT_EQ(collapse_params("main"), "main");
  EXPECT_EQ(collapse_params("f()"), "f()");
  EXPECT_EQ(collapse_params("f(int, g(*)(int))"), "f(...)");
  EXPECT_EQ(collapse_params("(anonymous namespace)::f(int) const"),
            "(anonymous namespace)::f(...) const");
  EXPECT_EQ(collapse_params("X::operator()(int) &&"), "X::operator()(...) &&");
  EXPECT_EQ(collapse_params("broken)"), "broken)");
}

TEST(Display, FitMiddleKeepsBothEnds) {
  EXPECT_EQ(fit_middle("abcdefghij", 10), "abcdefghij");
  EXPECT_EQ(fit_middle("abcdefghij", 7), "ab...ij");
  EXPECT_EQ(fit_middle("abcdefghij", 8), "ab...hij");  // the end gets the odd
  EXPECT_EQ(fit_middle("abcdefghij", 3), "...");
  EXPECT_EQ(fit_middle("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 4),
            "...\xC3\xA9");  // never splits a code point
}

TEST(Display, ShortFunctionName) {
  EXPECT_EQ(short_function_name("ZSTD_compressBlock_doubleFast", 40),
            "ZSTD_compressBlock_doubleFast");
  EXPECT_EQ(
      short_function_name(
          "std::vector<int, std::allocator<int>>::push_back(int const&)", 40),
      "std::vector<...>::push_back(int const&)");
  EXPECT_EQ(
      short_function_name("ns::Long<A, B>::method(int, char, double)", 26),
      "ns::Long<...>::method(...)");
  std::string shown = short_function_name(
      "a_very_long_c_function_name_that_goes_on_and_on_generic", 24);
  EXPECT_EQ(shown, "a_very_lon..._on_generic");
  EXPECT_EQ(display_width(shown), 24u);
}

TEST(Display, CommonDir) {
  EXPECT_EQ(common_dir({}), "");
  EXPECT_EQ(common_dir({"/home/u/p/src/a.c"}), "/home/u/p/src/");
  EXPECT_EQ(common_dir({"/home/u/p/src/a.c", "/home/u/p/lib/b.c"}),
            "/home/u/p/");
  EXPECT_EQ(common_dir({"/a/bc/x.c", "/a/bd/y.c"}), "/a/");
  EXPECT_EQ(common_dir({"/a/x.c", "/b/y.c"}), "");
  EXPECT_EQ(common_dir({"src/a.c", "src/b.c"}), "src/");
  EXPECT_EQ(common_dir({"a.c", "b.c"}), "");
}

TEST(Display, Wrap) {
  using V = std::vector<std::string>;
  EXPECT_EQ(wrap("", 10), V{""});
  EXPECT_EQ(wrap("one two three", 9), (V{"one two", "three"}));
  EXPECT_EQ(wrap("one two three", 13), V{"one two three"});
  EXPECT_EQ(wrap("a verylongword b", 4), (V{"a", "verylongword", "b"}));
  EXPECT_EQ(wrap("  spaced   out ", 20), V{"spaced out"});
}

}  // namespace
}  // namespace andweorc::report
