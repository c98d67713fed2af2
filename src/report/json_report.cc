// json_report.cc: the profile JSON, pretty or compact, on a stream.
#include "report/json_report.h"

#include "profile/profile_json.h"

namespace andweorc::report {

void write_json(const profile::Profile& p, std::ostream& out,
                const JsonOptions& options) {
  out << profile::dump_profile(p, options.pretty ? 2 : -1);
}

}  // namespace andweorc::report
