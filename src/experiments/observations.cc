// observations.cc: see observations.h.
#include "experiments/observations.h"

#include "planner/region_key.h"

namespace andweorc::experiments {

std::string region_key(const profile::Experiment& e) {
  if (e.granularity == "function")
    return planner::function_region_key(e.function, e.file);
  return planner::line_region_key(e.file, e.line);
}

planner::PointCount point_count(const profile::PointDelta& d) {
  planner::PointCount p;
  p.name = d.name;
  p.latency = d.kind != profile::PointKind::kThroughput;
  p.events = p.latency ? d.arrivals : d.visits;
  p.in_flight_start = d.in_flight_start;
  p.in_flight_end = d.in_flight_end;
  return p;
}

planner::Observation to_observation(const profile::Experiment& e) {
  planner::Observation o;
  o.region = region_key(e);
  for (const profile::Experiment::Parent& p : e.parents)
    o.parents.push_back(planner::function_region_key(p.function, p.file));
  o.stream = e.pid;
  o.speedup_pct = e.speedup_pct;
  o.virtual_s = e.virtual_duration_s();
  o.duration_s = e.duration_s;
  o.delay_s = e.delay_s;
  o.cpu_s = e.cpu_s;
  for (const profile::PointDelta& d : e.points)
    o.points.push_back(point_count(d));
  return o;
}

}  // namespace andweorc::experiments
