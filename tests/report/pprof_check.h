// pprof_check.h: an independent reader for the pprof files andweorc writes.
//
// Gunzips, parses profile.proto with the protobuf library, and checks the
// format's invariants (ids nonzero and unique, every referenced id exists,
// string_table[0] == "", string indices in range, one value per sample
// type). Then sums samples per leaf function, overall and per label.
#ifndef ANDWEORC_TESTS_REPORT_PPROF_CHECK_H_
#define ANDWEORC_TESTS_REPORT_PPROF_CHECK_H_

#include <cstdint>
#include <map>
#include <string>

namespace andweorc::testing {

struct PprofSummary {
  std::string error;    // the first invariant broken; "" when valid
  int64_t samples = 0;  // sum of the "samples"/"count" values
  int64_t cpu_ns = 0;   // sum of the "cpu"/"nanoseconds" values
  int64_t period = 0;
  size_t sample_types = 0;
  std::map<std::string, int64_t> leaf_samples;  // leaf function -> samples
  // "key=value" -> leaf function -> samples
  std::map<std::string, std::map<std::string, int64_t>> label_leaf_samples;
};

PprofSummary check_pprof(const std::string& gzipped);

}  // namespace andweorc::testing

#endif  // ANDWEORC_TESTS_REPORT_PPROF_CHECK_H_
