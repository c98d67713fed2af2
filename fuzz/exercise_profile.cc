// exercise_profile.cc: see exercise_profile.h.
#include "fuzz/exercise_profile.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "compare/diff_writers.h"
#include "compare/profile_diff.h"
#include "experiments/analysis.h"
#include "profile/attribution.h"
#include "profile/merge.h"
#include "profile/profile_json.h"
#include "report/coz_writer.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace andweorc::fuzz {

void exercise_profile(const profile::Profile& p) {
  // What the writer produces, the reader must accept.
  std::string text = profile::dump_profile(p);
  profile::ReadResult again = profile::parse_profile(text, "rewritten");
  if (!again.ok()) {
    std::fprintf(stderr, "rewritten profile rejected: %s\n",
                 again.error.c_str());
    std::abort();
  }
  std::ostringstream sink;
  report::write_text(p, sink, {});
  report::JsonOptions json;
  json.include_analysis = true;
  report::write_json(p, sink, json);
  report::write_coz(p, sink);
  compare::DiffOptions options;  // no source files: fuzz input names paths
  compare::ProfileDiff diff =
      compare::diff_profiles(p, *again.profile, options);
  compare::DiffReport r;
  r.base_name = "a";
  r.new_name = "b";
  r.diff = &diff;
  compare::write_diff_text(r, sink);
  compare::write_diff_markdown(r, sink);
  compare::write_diff_json(r, sink);
  profile::MergeResult merged =
      profile::merge_profiles({{"a", &p}, {"b", &p}}, {true});
  if (merged.ok()) {
    profile::ReadResult m =
        profile::parse_profile(profile::dump_profile(*merged.profile), "m");
    if (!m.ok()) {
      std::fprintf(stderr, "merged profile rejected: %s\n", m.error.c_str());
      std::abort();
    }
  }
}

}  // namespace andweorc::fuzz
