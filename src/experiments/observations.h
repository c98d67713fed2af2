// observations.h: a profile's experiment as the planner's Observation
// (planner/paired_blocks.h), so that the analysis and `run`'s monitor
// pair blocks and estimate slopes exactly as the preloaded planner does.
#ifndef ANDWEORC_EXPERIMENTS_OBSERVATIONS_H_
#define ANDWEORC_EXPERIMENTS_OBSERVATIONS_H_

#include <string>

#include "planner/paired_blocks.h"
#include "profile/profile.h"

namespace andweorc::experiments {

// The region key of the planner: "line\tFILE\tLINE" or
// "function\tFUNCTION\tFILE" (coordinator::ExperimentRunner::region_key).
std::string region_key(const profile::Experiment& e);

planner::Observation to_observation(const profile::Experiment& e);

// A point of a profile as the planner names it.
planner::PointCount point_count(const profile::PointDelta& d);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_EXPERIMENTS_OBSERVATIONS_H_
