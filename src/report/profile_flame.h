// profile_flame.h: the flame graph of a written profile's stacks, for the
// HTML report (report/html/flame.js draws it, as it draws the live page's):
// function frames named as the exports name them (frame_name.h), inlined
// callees as frames of their own, pruned as the live view's.
#ifndef ANDWEORC_REPORT_PROFILE_FLAME_H_
#define ANDWEORC_REPORT_PROFILE_FLAME_H_

#include <cstddef>

#include "profile/profile.h"
#include "report/stack_tree.h"

namespace andweorc::report {

// Frames under min_share of the samples, and beyond max_out, are left out
// (and counted). Labels are not frames here.
FlameGraph profile_flame(const profile::Profile& p, double min_share,
                         size_t max_out);

// The graph of `p` with, for each frame, `base`'s samples at the same path:
// a differential graph (a traced function's slow calls against its other
// calls).
FlameGraph profile_flame_against(const profile::Profile& p,
                                 const profile::Profile& base, double min_share,
                                 size_t max_out);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_PROFILE_FLAME_H_
