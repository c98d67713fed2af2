// slow_calls.h: the report of traced functions (--trace): each one's call
// count and duration percentiles, and `report --slower-than`: the sampling
// profile of its slow calls beside that of its other calls.
#ifndef ANDWEORC_REPORT_SLOW_CALLS_H_
#define ANDWEORC_REPORT_SLOW_CALLS_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "profile/profile.h"

namespace andweorc::report {

// "1.23 ms", "850 us", "2.00 s", "640 ns".
std::string format_duration(uint64_t ns);

// One line per traced function: calls, p50, p90, p95, p99, max; nothing
// when the profile has no traces.
void write_trace_summary(const profile::Profile& p, std::ostream& out);

// The JSON report's "analysis.traces": per traced function its calls,
// samples inside them and duration percentiles (p50, p90, p95, p99, max).
nlohmann::ordered_json trace_summary_json(const profile::Profile& p);

// The HTML report's "traces": per traced function the summary of
// trace_summary_json, a histogram of its durations (up to 40 log-spaced
// bins: "bins_ns" lower edges, "counts") and the slow-vs-fast table at its
// p95 ("slow_threshold_ns", "lines": up to `top` rows {where, function,
// slow, fast} ranked by their share in slow calls), and "flame": the slow
// calls' stacks against the others' (profile_flame_against).
nlohmann::ordered_json trace_html_json(const profile::Profile& p, size_t top);

// The slow-vs-fast report of t at `threshold_ns` (`threshold` as the user
// gave it): the counts, then the `top` lines and functions of the slow
// calls' samples, ranked by their share there, each with its share in the
// other calls and the difference in points, then the lines that gain the
// most share in slow calls.
void write_slow_calls_text(const profile::Profile& p,
                           const profile::TracedFunction& t,
                           uint64_t threshold_ns, const std::string& threshold,
                           size_t top, std::ostream& out);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_SLOW_CALLS_H_
