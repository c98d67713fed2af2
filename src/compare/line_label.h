// line_label.h: names of lines that stay tellable apart when shortened.
//
// Contract: the ":LINE" of a location is never cut. A too-long label loses
// the middle of its function name first (the namespace or class at the
// start and the function's own name at the end both stay), then the start
// of the file name; so six lines of one long-named function still read
// "zstd_lazy.c:1021 ZSTD_compre...Fast_noDict_generic",
// "zstd_lazy.c:1034 ZSTD_compre...Fast_noDict_generic", ...
// (Issue 19 brings a path normalisation in src/report; this file only
// shortens.)
#ifndef ANDWEORC_COMPARE_LINE_LABEL_H_
#define ANDWEORC_COMPARE_LINE_LABEL_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace andweorc::compare {

// `s` with its middle replaced by "..." to fit `width` columns (UTF-8 code
// points); unchanged when it fits. Widths below 5 give the first `width`
// columns.
std::string elide_middle(std::string_view s, size_t width);

// A function name for display: template arguments and parameter lists
// collapsed to "..." (report/display.h).
std::string short_function(const std::string& function);

// "demo.c:42 stage_a" within `width` columns (see above). `file` may be a
// path: its base name is used. A function row (line 0) reads
// "stage_a (demo.c)".
std::string line_label(const std::string& file, int line,
                       const std::string& function, size_t width);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_LINE_LABEL_H_
