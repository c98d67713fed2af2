// speedscope_writer.h: speedscope's JSON file format
// (https://www.speedscope.app/file-format-schema.json), "sampled" profiles.
//
// Contract: one shared frame table (a frame per profile frame: name as in
// frame_name.h, file and line when known; plus one "[label key=value]" frame
// per label), then a sampled profile "all samples" whose stacks start with
// their label frames (outermost first, as in folded_writer.h), and one
// profile per label ("key=value", most samples first) with that label's
// stacks only. Stacks are root first; weights are nanoseconds of CPU time
// (samples x sample period), or sample counts (unit "none") when the period
// is unknown. endValue is the sum of the weights.
#ifndef ANDWEORC_REPORT_SPEEDSCOPE_WRITER_H_
#define ANDWEORC_REPORT_SPEEDSCOPE_WRITER_H_

#include <ostream>

#include "profile/profile.h"

namespace andweorc::report {

void write_speedscope(const profile::Profile& p, std::ostream& out);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_SPEEDSCOPE_WRITER_H_
