// diff_writers.h: a ProfileDiff for people (text), pull requests (markdown)
// and tools (JSON, documented in docs/diff.md).
//
// Contract: pure functions of their arguments; no locale, no clock, so the
// output is byte-for-byte reproducible (golden tests in tests/compare/).
// Every line whose bottleneck status or impact changed significantly is
// listed; of the other lines and the sample-share rows, the first `top`.
// The JSON lists every line and every share row.
#ifndef ANDWEORC_COMPARE_DIFF_WRITERS_H_
#define ANDWEORC_COMPARE_DIFF_WRITERS_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "compare/fail_on.h"
#include "compare/profile_diff.h"

namespace andweorc::compare {

// The value of the JSON document's "format" and its version.
inline constexpr const char* kDiffFormatTag = "andweorc-diff";
inline constexpr const char* kDiffFormatVersion = "1.1";

struct DiffReport {
  std::string base_name, new_name;  // usually the paths ("a + b" for runs)
  std::vector<std::string> base_files, new_files;  // every run's path
  const ProfileDiff* diff = nullptr;
  std::vector<FailRule> rules;
  std::vector<Finding> findings;
  size_t top = 10;
};

void write_diff_text(const DiffReport& r, std::ostream& out);
void write_diff_markdown(const DiffReport& r, std::ostream& out);
void write_diff_json(const DiffReport& r, std::ostream& out);

// Lines a reader must see: new/vanished bottlenecks and significant changes.
bool is_notable(const LineChange& c);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_DIFF_WRITERS_H_
