// source_context.h: a few source lines around a profiled line, read when
// the report is written.
//
// Contract: read_source_contexts reads each distinct file once, up to the
// last line any request needs, and returns one SourceContext per request,
// in request order. A file is found by source_finder.h's rule under
// `roots` ("../../src/a.c" is read as "src/a.c" under "."). A context
// holds up to `radius` lines before and after the requested line (fewer at the
// file's ends). Lines lose a trailing '\r' and are cut at kMaxSourceLineBytes
// (on a UTF-8 boundary, marked with
// "..."). When the file cannot be read, or is shorter than the line, the
// context says why in `error` and has no lines. Never throws but for
// std::bad_alloc.
#ifndef ANDWEORC_REPORT_SOURCE_CONTEXT_H_
#define ANDWEORC_REPORT_SOURCE_CONTEXT_H_

#include <cstddef>
#include <string>
#include <vector>

namespace andweorc::report {

inline constexpr size_t kMaxSourceLineBytes = 400;

struct SourceRequest {
  std::string file;
  int line = 0;
};

struct SourceContext {
  std::string file;
  int line = 0;
  std::string found_as;            // the path read, when not `file` itself
  int first_line = 0;              // number of lines[0]
  std::vector<std::string> lines;  // empty when `error` is set
  std::string error;               // "" when the lines were read
};

std::vector<SourceContext> read_source_contexts(
    const std::vector<SourceRequest>& requests, int radius,
    const std::vector<std::string>& roots = {});

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_SOURCE_CONTEXT_H_
