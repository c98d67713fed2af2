// folded_writer.h: Brendan Gregg's folded stacks (input of flamegraph.pl,
// speedscope, inferno and most flame-graph tools).
//
// Contract: one line per distinct stack, "root;...;leaf COUNT": frames named
// as in frame_name.h, root first, ';' inside a name replaced by ':'; COUNT is
// the stack's weighted samples. A labelled stack starts with one
// "[label key=value]" frame per label, outermost first, so each label gets
// its own tower. Stacks that fold to the same line are summed; lines are
// sorted, so output is deterministic. Empty stacks show as "[unknown]".
#ifndef ANDWEORC_REPORT_FOLDED_WRITER_H_
#define ANDWEORC_REPORT_FOLDED_WRITER_H_

#include <ostream>

#include "profile/profile.h"

namespace andweorc::report {

void write_folded(const profile::Profile& p, std::ostream& out);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_FOLDED_WRITER_H_
