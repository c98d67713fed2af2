// coz_writer.h: the profile in Coz's `profile.coz` text format, so Coz's
// viewer and scripts read andweorc's results.
//
// Contract: write_coz writes one record per line, each `TYPE` followed by
// tab-separated `key=value` fields, as Coz's runtime does:
//   startup           time=NS (the run's start_time as Unix nanoseconds, or
//                     0 when it is unknown; Coz's viewer ignores it)
//   experiment        selected=FILE:LINE speedup=0.25 duration=NS
//                     selected-samples=N   (duration is the *virtual*
//                     duration, wall time minus inserted delay, in ns)
//   throughput-point  name=NAME delta=VISITS        (after each experiment)
//   latency-point     name=NAME arrivals=N departures=N difference=N
//                     (difference: transactions in flight at its end)
//   runtime           time=NS                       (the run's wall time)
//   samples           location=FILE:LINE count=N    (in-scope samples per
//                     line, as attributed in profile/attribution.h)
// Experiments whose virtual duration is not positive are left out (Coz's
// viewer would discard them anyway). Tabs and line breaks inside names are
// written as spaces, since the format cannot carry them. The output is
// deterministic. Several profiles appended to one file merge in Coz's viewer,
// which is what append_coz_file is for.
#ifndef ANDWEORC_REPORT_COZ_WRITER_H_
#define ANDWEORC_REPORT_COZ_WRITER_H_

#include <ostream>
#include <string>

#include "profile/profile.h"

namespace andweorc::report {

void write_coz(const profile::Profile& p, std::ostream& out);

// Appends write_coz(p) to `path` (creating it), in a single write so that
// concurrent appenders do not interleave lines. On failure returns false and
// sets *error (if non-null) to a one-line message.
bool append_coz_file(const profile::Profile& p, const std::string& path,
                     std::string* error);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_COZ_WRITER_H_
