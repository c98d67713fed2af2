// trace_view.h: views of a traced function's calls (--trace): duration
// percentiles, a threshold given as a percentile or a duration, and the
// sampling profile of the calls slower (or not slower) than it.
#ifndef ANDWEORC_PROFILE_TRACE_VIEW_H_
#define ANDWEORC_PROFILE_TRACE_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>

#include "profile/profile.h"

namespace andweorc::profile {

// The traced function named `name` ("" picks the only one); nullptr with
// `error` listing the traced functions otherwise.
const TracedFunction* find_trace(const Profile& p, const std::string& name,
                                 std::string* error);

// Nearest-rank percentile (0 < q <= 100) of t's durations; 0 without calls.
uint64_t duration_percentile(const TracedFunction& t, double q);

// "p95", "p99.9" (a percentile of t's calls) or "2ms", "150us", "1.5s",
// "800ns" (a duration); nullopt with `error` on anything else.
std::optional<uint64_t> parse_threshold(const TracedFunction& t,
                                        const std::string& text,
                                        std::string* error);

// Calls of t slower than threshold (duration > threshold).
uint64_t calls_slower_than(const TracedFunction& t, uint64_t threshold_ns);

// `p` with only the samples taken inside calls of t slower than
// `threshold_ns` (slow = true) or not slower (slow = false): same frames,
// stacks re-weighted (those left empty removed), samples recounted; no
// experiments, points or traces. Feeds attribute(), the folded and
// speedscope writers.
Profile calls_profile(const Profile& p, const TracedFunction& t,
                      uint64_t threshold_ns, bool slow);

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_TRACE_VIEW_H_
