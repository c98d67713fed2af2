// source_finder.h: where a recorded source path is on this machine; the one
// rule the HTML report's source context and `andweorc diff`'s line matching
// both use, so they never resolve one path to two different files.
//
// Contract: locate_source returns `file` when it is a regular file as
// recorded; else, for paths the compiler recorded relative to its build
// directory or a checkout in another place, the first of its path suffixes
// (longest first, none starting with "/", "./" or "../") that is a regular
// file under one of `roots`, tried in order ("." or "" is the working
// directory): "../../src/a.c" or "/home/ci/proj/src/a.c" is found as
// "src/a.c" under ".". Returns "" when nothing is found.
#ifndef ANDWEORC_REPORT_SOURCE_FINDER_H_
#define ANDWEORC_REPORT_SOURCE_FINDER_H_

#include <string>
#include <vector>

namespace andweorc::report {

std::string locate_source(const std::string& file,
                          const std::vector<std::string>& roots);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_SOURCE_FINDER_H_
