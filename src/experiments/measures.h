// measures.h: what one experiment says about one progress point (its
// period, or its latency by Little's law) and the pooled baseline of a
// run's 0% experiments. Internal to experiments/ (analysis.cc).
#ifndef ANDWEORC_EXPERIMENTS_MEASURES_H_
#define ANDWEORC_EXPERIMENTS_MEASURES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profile/profile.h"

namespace andweorc::experiments {

using PointKey = std::pair<std::string, profile::PointKind>;

// What one experiment says about one progress point.
struct Measure {
  const profile::Experiment* e = nullptr;
  double x = 0;          // line speed-up, 0..1
  double weight = 0;     // virtual duration, s
  double value = 0;      // period (s per visit) or latency (s)
  uint64_t events = 0;   // visits or arrivals
  double in_flight = 0;  // latency: mean transactions in flight
};

// The experiment's change of the point, or null when it did not record it.
const profile::PointDelta* find_delta(const profile::Experiment& e,
                                      const PointKey& key);

// The measure, or nothing when the experiment is unusable for the point:
// no time left after delays, the point not recorded or never reached.
std::optional<Measure> measure(const profile::Experiment& e,
                               const PointKey& key);

// The pooled baseline over 0% measures; 0 when there is none.
double pooled_baseline(const std::vector<Measure>& zeros,
                       profile::PointKind kind);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_MEASURES_H_
