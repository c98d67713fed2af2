// json_report.h: the profile as JSON on a stream (`andweorc report -f json`).
//
// Contract: writes exactly profile::dump_profile(p) -- the documented file
// format (docs/profile-format.md), so the output can be read back with
// profile::parse_profile -- pretty-printed or as one compact line. Ends with
// a newline.
#ifndef ANDWEORC_REPORT_JSON_REPORT_H_
#define ANDWEORC_REPORT_JSON_REPORT_H_

#include <ostream>

#include "profile/profile.h"

namespace andweorc::report {

struct JsonOptions {
  bool pretty = true;
};

void write_json(const profile::Profile& p, std::ostream& out,
                const JsonOptions& options = {});

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_JSON_REPORT_H_
