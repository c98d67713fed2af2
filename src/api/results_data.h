// results_data.h: what andweorc::Results (runner.h) holds: the profile the
// run produced and the analysis of one progress point from it.
#ifndef ANDWEORC_API_RESULTS_DATA_H_
#define ANDWEORC_API_RESULTS_DATA_H_

#include <string>
#include <vector>

#include "andweorc/runner.h"
#include "profile/profile.h"

namespace andweorc {

struct Results::Data {
  std::string point;
  std::string error;  // "" when the run produced estimates
  profile::Profile profile;
  std::vector<Impact> impacts;  // for `point`, by rank
  double seconds = 0;
};

namespace api {

// Analyzes data->profile (experiments/analysis.h) and keeps data->point's
// lines; sets data->error when none could be estimated.
void fill_impacts(Results::Data* data);

}  // namespace api
}  // namespace andweorc

#endif  // ANDWEORC_API_RESULTS_DATA_H_
