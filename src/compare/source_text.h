// source_text.h: the text of source lines, for matching lines across
// versions.
//
// Contract: SourceText::line(file, n) returns line n (1-based) of the file,
// normalized (leading and trailing blanks removed, runs of blanks collapsed
// to one space), or nullopt when the file cannot be read, n is out of range,
// or the line is blank. Each file is read at most once. A prefix map
// ("FROM=TO") rewrites a recorded path that starts with FROM before reading,
// so a profile of another checkout can be read against that checkout. The
// (rewritten) path is then found by the HTML report's rule
// (report/source_finder.h) under the working directory: a path recorded
// relative to the build directory, or of a checkout elsewhere, is read as
// its longest suffix that exists here (`andweorc diff` usually runs from the
// source tree's root).
// Files larger than kMaxSourceBytes are treated as unreadable.
#ifndef ANDWEORC_COMPARE_SOURCE_TEXT_H_
#define ANDWEORC_COMPARE_SOURCE_TEXT_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace andweorc::compare {

inline constexpr size_t kMaxSourceBytes = size_t{64} << 20;

class SourceText {
 public:
  SourceText() = default;
  // `prefix_map`: "" or "FROM=TO".
  explicit SourceText(std::string prefix_map);

  std::optional<std::string> line(const std::string& file, int n);

  // For tests: use `lines` as the content of `file` instead of reading it.
  void set_file(const std::string& file, std::vector<std::string> lines);

 private:
  const std::vector<std::string>* load(const std::string& file);

  std::string from_, to_;
  // nullopt: unreadable.
  std::map<std::string, std::optional<std::vector<std::string>>> files_;
};

// Leading/trailing blanks removed, inner runs of blanks made one space.
std::string normalize_source(const std::string& text);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_SOURCE_TEXT_H_
