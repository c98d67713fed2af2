// profile_builder.h: raw per-process records -> one symbolized Profile.
//
// Symbolizes every sampled address with the maps its own process recorded,
// expands inline chains into frames, marks frames in scope, merges identical
// stacks, sums progress-point totals across processes, and turns runtime
// notes and data-quality problems into warnings for the report.
#ifndef ANDWEORC_INGEST_PROFILE_BUILDER_H_
#define ANDWEORC_INGEST_PROFILE_BUILDER_H_

#include <string>
#include <vector>

#include "ingest/raw_reader.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

namespace andweorc::ingest {

struct BuildOptions {
  std::vector<std::string> binary_scope;  // empty: default_binary_scope()
  std::vector<std::string> source_scope;  // empty: default_source_scope()
  // `run --split-points`: "process" or "executable" names each process's
  // point totals as the coordinator named them in the experiments
  // (NAME@PID, NAME@FILE); "" adds them up.
  std::string split_points;
};

// One raw experiment of process `pid` as the profile records it.
profile::Experiment to_experiment(const RawExperiment& raw, int pid);

// Fills everything but profile->run (which the caller knows).
void build_profile(const std::vector<RawProcess>& processes,
                   const BuildOptions& options, symbols::Symbolizer& symbolizer,
                   profile::Profile* profile);

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_PROFILE_BUILDER_H_
