// line_label.h: names of lines that stay tellable apart when shortened.
//
// Contract: the ":LINE" of a location is never cut. A too-long label loses
// the middle of its function name first (the namespace or class at the
// start and the function's own name at the end both stay), then the start
// of the file name; so six lines of one long-named function still read
// "zstd_lazy.c:1021 ZSTD_compre...Fast_noDict_generic",
// "zstd_lazy.c:1034 ZSTD_compre...Fast_noDict_generic", ...
// Files are shown as `paths` shows them (report/source_paths.h), so two
// files with one base name in two folders never look alike; names are cut
// by report::fit_middle, the rule of every report.
#ifndef ANDWEORC_COMPARE_LINE_LABEL_H_
#define ANDWEORC_COMPARE_LINE_LABEL_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "report/source_paths.h"

namespace andweorc::compare {

// A function name for display: template arguments and parameter lists
// collapsed to "..." (report/display.h).
std::string short_function(const std::string& function);

// "demo.c:42 stage_a" within `width` columns (see above), the file as
// paths.display(file) ("?" when unknown). A function row (line 0) reads
// "stage_a (demo.c)".
std::string line_label(const report::SourcePaths& paths,
                       const std::string& file, int line,
                       const std::string& function, size_t width);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_LINE_LABEL_H_
