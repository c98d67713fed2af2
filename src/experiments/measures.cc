// measures.cc: see measures.h.
#include "experiments/measures.h"

#include <cmath>

namespace andweorc::experiments {

using profile::Experiment;
using profile::PointDelta;
using profile::PointKind;

const PointDelta* find_delta(const Experiment& e, const PointKey& key) {
  for (const PointDelta& d : e.points) {
    if (d.name == key.first && d.kind == key.second) return &d;
  }
  return nullptr;
}

std::optional<Measure> measure(const Experiment& e, const PointKey& key) {
  double d = e.virtual_duration_s();
  const PointDelta* delta = find_delta(e, key);
  if (!(d > 0) || !std::isfinite(d) || delta == nullptr) return std::nullopt;
  Measure m;
  m.e = &e;
  m.x = e.speedup_pct / 100.0;
  m.weight = d;
  if (key.second == PointKind::kThroughput) {
    if (delta->visits == 0) return std::nullopt;
    m.events = delta->visits;
    m.value = d / static_cast<double>(delta->visits);
  } else {
    if (delta->arrivals == 0) return std::nullopt;
    m.in_flight = (static_cast<double>(delta->in_flight_start) +
                   static_cast<double>(delta->in_flight_end)) /
                  2;
    if (m.in_flight < 0) return std::nullopt;
    m.events = delta->arrivals;
    // Little's law: latency = in flight / arrival rate.
    m.value = m.in_flight / (static_cast<double>(delta->arrivals) / d);
  }
  return m;
}

double pooled_baseline(const std::vector<Measure>& zeros, PointKind kind) {
  double duration = 0;
  double events = 0;
  double in_flight_time = 0;
  for (const Measure& m : zeros) {
    duration += m.weight;
    events += static_cast<double>(m.events);
    in_flight_time += m.in_flight * m.weight;
  }
  if (events <= 0) return 0;
  // Throughput: total time / total visits. Latency: the duration-weighted
  // mean in-flight over the pooled arrival rate.
  return kind == PointKind::kThroughput ? duration / events
                                        : in_flight_time / events;
}

}  // namespace andweorc::experiments
