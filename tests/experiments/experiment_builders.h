// experiment_builders.h: small helpers that build synthetic experiments.
#ifndef ANDWEORC_TESTS_EXPERIMENTS_EXPERIMENT_BUILDERS_H_
#define ANDWEORC_TESTS_EXPERIMENTS_EXPERIMENT_BUILDERS_H_

#include <string>

#include "profile/profile.h"

namespace andweorc::experiments::testing {

// An experiment on file:line at `pct`% whose virtual duration is
// `virtual_s` (a delay proportional to the speed-up is added on top, so the
// wall duration differs) and in which throughput point `point` had
// `visits` visits.
inline profile::Experiment throughput_exp(const std::string& file, int line,
                                          int pct, double virtual_s,
                                          uint64_t visits,
                                          const std::string& point = "done",
                                          uint64_t samples = 10) {
  profile::Experiment e;
  e.file = file;
  e.line = line;
  e.function = "fn_" + std::to_string(line);
  e.speedup_pct = pct;
  e.delay_s = 0.01 * pct;
  e.duration_s = virtual_s + e.delay_s;
  e.selected_samples = samples;
  e.pid = 1;
  profile::PointDelta d;
  d.name = point;
  d.kind = profile::PointKind::kThroughput;
  d.visits = visits;
  e.points.push_back(d);
  return e;
}

// The same with a latency point: `arrivals` BEGINs and the given numbers in
// flight at the start and end.
inline profile::Experiment latency_exp(const std::string& file, int line,
                                       int pct, double virtual_s,
                                       uint64_t arrivals, int64_t start,
                                       int64_t end,
                                       const std::string& point = "query") {
  profile::Experiment e = throughput_exp(file, line, pct, virtual_s, 0);
  profile::PointDelta& d = e.points[0];
  d.name = point;
  d.kind = profile::PointKind::kLatency;
  d.arrivals = arrivals;
  d.departures = arrivals;
  d.in_flight_start = start;
  d.in_flight_end = end;
  return e;
}

// A throughput experiment for a line whose true impact is `impact`: with
// 1000 visits, the virtual duration is 1 ms * 1000 * (1 - impact * pct/100)
// so that the program speed-up is exactly impact * pct / 100.
inline profile::Experiment exact_exp(const std::string& file, int line, int pct,
                                     double impact) {
  double period = 0.001 * (1 - impact * pct / 100.0);
  return throughput_exp(file, line, pct, period * 1000, 1000);
}

}  // namespace andweorc::experiments::testing

#endif  // ANDWEORC_TESTS_EXPERIMENTS_EXPERIMENT_BUILDERS_H_
