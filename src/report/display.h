// display.h: formatting primitives for the text report.
//
// Contract: pure functions on strings and numbers; no locale, no I/O, so the
// report is byte-for-byte reproducible. Widths count UTF-8 code points (one
// column each); truncation never splits a code point and marks the cut with
// "...".
#ifndef ANDWEORC_REPORT_DISPLAY_H_
#define ANDWEORC_REPORT_DISPLAY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile.h"

namespace andweorc::report {

// 1234567 -> "1,234,567".
std::string format_count(uint64_t n);

// 0.4213 -> "42.1%"; a share above 0 but below 0.05% -> "<0.1%".
std::string format_share(double share);

// A sampling period: 1000000 -> "1 ms", 250000 -> "250 us",
// 1500000 -> "1.5 ms", 2000000000 -> "2 s", 500 -> "500 ns".
std::string format_period(uint64_t ns);

// Wall time: 2.5 -> "2.50 s"; 125 -> "2 min 5.0 s".
std::string format_seconds(double s);

// How the run sampled, e.g. "perf (task-clock), every 1 ms of CPU time per
// thread", for the text and HTML headers.
std::string sampler_text(const profile::Profile& p);

// Arguments joined for display, single-quoting those a shell would split or
// expand: {"./a", "x y"} -> "./a 'x y'".
std::string shell_join(const std::vector<std::string>& args);

// Columns `s` takes: the number of UTF-8 code points.
size_t display_width(std::string_view s);

// `s` cut to at most `width` columns, keeping the start ("abcdef",5 ->
// "ab...").
std::string fit_right(std::string_view s, size_t width);

// `s` cut to at most `width` columns, keeping the end ("abcdef",5 -> "...ef").
std::string fit_left(std::string_view s, size_t width);

// A C++ name with the contents of each outermost template argument list
// replaced by "...": "std::vector<int, A<int>>::push_back(int const&)" ->
// "std::vector<...>::push_back(int const&)". Operators such as operator<,
// operator<< and operator-> are left alone; a name whose angle brackets do
// not balance is returned unchanged.
std::string collapse_templates(std::string_view name);

// A function name with its trailing parameter list shortened to "(...)":
// "(anonymous namespace)::f(int, char) const" ->
// "(anonymous namespace)::f(...) const". Names without one are unchanged.
std::string collapse_params(std::string_view name);

// `s` cut to at most `width` columns, keeping its start and its end, which
// name a function best ("abcdefghij",7 -> "ab...ij"; the end gets the odd
// column).
std::string fit_middle(std::string_view s, size_t width);

// A function name for a narrow place (a table cell): unchanged when it fits
// `width` columns; else template arguments collapsed, then parameters, then
// cut in the middle. The full name belongs in a tooltip or the JSON.
std::string short_function_name(std::string_view name, size_t width);

// `s` padded with spaces to `width` columns on the right / on the left.
std::string pad_right(std::string_view s, size_t width);
std::string pad_left(std::string_view s, size_t width);

// The directory prefix (ending in '/') shared by every path, or "" when they
// share none beyond "/". A single path yields its directory.
std::string common_dir(const std::vector<std::string>& paths);

// `text` broken at spaces into lines of at most `width` columns (a word
// longer than `width` gets a line of its own). Empty text -> one empty line.
std::vector<std::string> wrap(std::string_view text, size_t width);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_DISPLAY_H_
