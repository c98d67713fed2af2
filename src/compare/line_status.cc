// line_status.cc: the one table of line statuses (line_status.h).
#include "compare/line_status.h"

#include <cstddef>
#include <iterator>

namespace andweorc::compare {
namespace {

struct StatusRow {
  LineStatus status;
  const char* name;   // JSON
  const char* words;  // text and markdown
  int order;          // 0 new, 1 vanished, 2 significant change, 3 the rest
};

// In enum order, so a status indexes its row.
constexpr StatusRow kRows[] = {
    {LineStatus::kNewBottleneck, "new-bottleneck", "NEW bottleneck", 0},
    {LineStatus::kVanishedBottleneck, "vanished-bottleneck", "bottleneck gone",
     1},
    {LineStatus::kIncreased, "impact-increased", "impact up", 2},
    {LineStatus::kDecreased, "impact-decreased", "impact down", 2},
    {LineStatus::kUnchanged, "unchanged", "no significant change", 3},
    {LineStatus::kOnlyBase, "only-base", "only in BASE", 3},
    {LineStatus::kOnlyNew, "only-new", "only in NEW", 3},
};

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < std::size(kRows); ++i) {
    if (static_cast<size_t>(kRows[i].status) != i) return false;
  }
  return true;
}
static_assert(rows_in_enum_order(), "kRows must follow LineStatus's order");

const StatusRow& row(LineStatus s) { return kRows[static_cast<size_t>(s)]; }

}  // namespace

const char* status_name(LineStatus s) { return row(s).name; }
std::string status_words(LineStatus s) { return row(s).words; }
int status_order(LineStatus s) { return row(s).order; }
bool is_notable_status(LineStatus s) { return row(s).order <= 2; }

}  // namespace andweorc::compare
