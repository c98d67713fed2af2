// source_paths.h: how every report shows a source file's path: normalised
// lexically, relative to a source root, the full path kept for hover/JSON.
//
// Contract: pure functions of their arguments (no file system access, so a
// report is reproducible and symlinks are never followed).
//  - normalize_path collapses repeated '/', drops "." segments and resolves
//    "dir/.." pairs: "/b/p//lib/./x/../c.c" -> "/b/p/lib/c.c". ".." above
//    the root of an absolute path is dropped ("/../a" -> "/a"); the leading
//    ".." of a relative path are kept ("../../a" stays); a path that
//    resolves to nothing is "." ("a/.." -> "."); a trailing '/' is dropped
//    (but "/" stays); "" stays "".
//  - SourcePaths(files, roots) chooses the roots paths are shown relative
//    to: first the user's `roots` (e.g. --source-root; normalised, "." and
//    "" ignored, longest first), then the auto root: the common directory
//    (common_dir in display.h) of the normalised `files` that lie under no
//    user root and are not system headers (/usr/include/, /usr/local/include/,
//    /usr/lib/), when that is more than "/". When some files are absolute,
//    only the absolute ones count: a relative path is relative to a
//    compilation directory the profile does not record, so it is shown as
//    recorded (normalised) rather than cut at a root it may not share.
//  - display(file) is normalize_path(file) with the first root it lies under
//    stripped ("" for an empty file); a file under no root is shown whole
//    (normalised).
// Used by the text, JSON and HTML reports and the diff writers.
#ifndef ANDWEORC_REPORT_SOURCE_PATHS_H_
#define ANDWEORC_REPORT_SOURCE_PATHS_H_

#include <string>
#include <string_view>
#include <vector>

namespace andweorc::report {

std::string normalize_path(std::string_view path);

class SourcePaths {
 public:
  // No root: display() only normalises.
  SourcePaths() = default;
  // `files`: every file the report shows (finds the auto root); `roots`:
  // directories the user named, checked first. Relative roots only match
  // relative files: make them absolute first (absolute_roots) to match
  // absolute ones.
  explicit SourcePaths(const std::vector<std::string>& files,
                       const std::vector<std::string>& roots = {});

  // The path as shown: "/b/p//lib/c.c" with root "/b/p/" -> "lib/c.c".
  std::string display(std::string_view file) const;

  // The roots stripped, each normalised and ending in '/': the user's first
  // (longest first), then the auto root, if any. Empty: paths are shown
  // whole.
  const std::vector<std::string>& roots() const { return roots_; }

  // The roots for a header line ("relative to X" / "X, Y"); "" when none.
  std::string roots_text() const;

 private:
  std::vector<std::string> roots_;
};

// `roots` made absolute against the working directory and normalised; ""
// and "." (the implicit source lookup root) are left out, so the working
// directory never decides how paths are shown. The one impure helper here:
// the report writers call it once on --source-root values.
std::vector<std::string> absolute_roots(const std::vector<std::string>& roots);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_SOURCE_PATHS_H_
