// line_status.h: what happened to a line between BASE and NEW, with its
// names (machine and words) and its place in the order, in one table.
//
// Contract: every LineStatus has one row in line_status.cc; status_name is
// the JSON key ("new-bottleneck", ...), status_words what the text and
// markdown writers print ("NEW bottleneck", ...), status_order the diff's
// sort group (bottleneck news, then significant changes, then the rest),
// and is_notable_status says whether a reader must see the line.
#ifndef ANDWEORC_COMPARE_LINE_STATUS_H_
#define ANDWEORC_COMPARE_LINE_STATUS_H_

#include <string>

namespace andweorc::compare {

enum class LineStatus {
  kNewBottleneck,
  kVanishedBottleneck,
  kIncreased,
  kDecreased,
  kUnchanged,
  kOnlyBase,
  kOnlyNew,
};

const char* status_name(LineStatus s);
std::string status_words(LineStatus s);
int status_order(LineStatus s);
// New and vanished bottlenecks and significant changes.
bool is_notable_status(LineStatus s);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_LINE_STATUS_H_
