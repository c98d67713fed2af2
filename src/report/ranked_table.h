// ranked_table.h: the column layout of the text report's ranked tables
// ("Top lines", "Top functions"): rank, share, samples, then two text
// columns fitted into the width.
//
// Contract: write_ranked_table writes a heading row (`head`'s two texts)
// and one row per entry, ranked from 1, indented by two columns, at most
// `width` columns wide (for width >= 60), trailing blanks removed. The
// samples column is as wide as its widest count; the two text columns get
// the rest: both whole when they fit, else a column narrower than half the
// room keeps its width and the other gets the rest, else they split it
// evenly. A text that does not fit is shortened as its ColumnFit says.
#ifndef ANDWEORC_REPORT_RANKED_TABLE_H_
#define ANDWEORC_REPORT_RANKED_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace andweorc::report {

struct RankedRow {
  double share;  // of all samples
  uint64_t samples;
  std::string first;   // padded to its column
  std::string second;  // last on the line
};

// How a text column is shortened when it does not fit: keep its start, keep
// its end (paths: the file name is there), or a function name (C++
// decorations collapsed first, then the end kept: the name is there).
enum class ColumnFit { kKeepStart, kKeepEnd, kFunction };

void write_ranked_table(std::ostream& out, size_t width, const RankedRow& head,
                        const std::vector<RankedRow>& rows, ColumnFit first_fit,
                        ColumnFit second_fit);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_RANKED_TABLE_H_
