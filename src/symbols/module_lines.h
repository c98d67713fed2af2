// module_lines.h: the in-scope source lines of one ELF file and the code
// ranges that count for each, in the file's own vaddr space.
//
// What the coordinator's line catalog is made of (src/coordinator/
// line_catalog.h), one file at a time, so that it can be computed once
// outside the profiled process and cached (line_cache.h) instead of from
// DWARF inside it at every start. Every code range maps to the first
// in-scope frame of its inline chain: code inlined from a system header into
// your function counts for the line in your function that called it.
#ifndef ANDWEORC_SYMBOLS_MODULE_LINES_H_
#define ANDWEORC_SYMBOLS_MODULE_LINES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "symbols/module.h"
#include "symbols/scope.h"

namespace andweorc::symbols {

struct ModuleLines {
  struct Line {
    std::string file;
    int line = 0;
    std::string function;  // the function the line is written in
    bool operator==(const Line&) const = default;
  };
  // [lo, hi) in ELF vaddr space, sorted by lo (ties in line-table order).
  struct Range {
    uint64_t lo = 0, hi = 0;
    uint32_t line = 0;      // index into lines
    uint32_t function = 0;  // index into functions: the concrete function
    bool operator==(const Range&) const = default;
  };
  std::vector<Line> lines;
  std::vector<std::string> functions;
  std::vector<Range> ranges;

  bool operator==(const ModuleLines&) const = default;
};

// The in-scope lines of `mod` whose code lies in its executable segments.
// Reads all of its DWARF line tables and inline chains (tens to hundreds of
// milliseconds for a large program).
ModuleLines in_scope_lines(Module* mod, const ScopeMatcher& scope);

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_MODULE_LINES_H_
