// process_section.h: the "Processes" part of the text report (issue 15).
//
// Contract: for a profile of more than one process, writes a heading and one
// row per process: pid, parent, executable (basename), samples, the causal
// experiments it took part in ("-" when unknown) and how it ended ("killed"
// when the runtime wrote no end record: killed or crashed). At most `top` rows
// (0 = all), the most sampled first, then a count of the rest; rows fit in
// `width` columns (the executable's name is shortened). Writes nothing for
// a one-process profile. Deterministic.
#ifndef ANDWEORC_REPORT_PROCESS_SECTION_H_
#define ANDWEORC_REPORT_PROCESS_SECTION_H_

#include <cstddef>
#include <ostream>
#include <string>

#include "profile/profile.h"

namespace andweorc::report {

void write_process_section(const profile::Profile& p, std::ostream& out,
                           size_t top, size_t width,
                           const std::string& heading);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_PROCESS_SECTION_H_
