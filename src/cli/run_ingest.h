// run_ingest.h: a finished `andweorc run` as a profile: the runtime's raw
// records symbolized, with the run's metadata and experiment settings.
#ifndef ANDWEORC_CLI_RUN_INGEST_H_
#define ANDWEORC_CLI_RUN_INGEST_H_

#include <chrono>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "cli/run_options.h"
#include "ingest/raw_reader.h"
#include "profile/profile.h"

namespace andweorc::cli {

// What one run was, as the tool saw it.
struct RunRecord {
  std::vector<std::string> command;
  std::chrono::system_clock::time_point start_wall;
  double seconds = 0;  // wall time of the run
  ChildResult child;
  std::string data_dir;  // where the raw records are (named in warnings)
};

// The profile of the run: metadata (command, start, duration, exit, sample
// period, tool version, the sampler the processes used), the experiment
// settings, every process's records symbolized within the scopes, the
// stopping rule's state (experiments that are not end-to-end), and a
// warning when processes the program started were still running.
profile::Profile profile_of_run(const RunOptions& o,
                                const RunSettings& settings,
                                const RunRecord& run,
                                const std::vector<ingest::RawProcess>& raw);

// An end-to-end run holds one experiment; estimates need many runs. When the
// file at `path` already holds end-to-end runs of the same command, their
// experiments are put before `prof`'s, so that repeated runs add up (as
// Coz's appended profile.coz).
void accumulate_end_to_end(const std::string& path, profile::Profile* prof);

// Writes `prof` to o.output in the run's format (Coz's file is appended to,
// as Coz does; JSON replaces the file atomically).
bool write_run_profile(const RunOptions& o, const RunSettings& settings,
                       const profile::Profile& prof, std::string* error);

// Unless -q: the text summary and where the profile went, on standard error.
void print_run_summary(const RunOptions& o, const profile::Profile& prof);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_RUN_INGEST_H_
