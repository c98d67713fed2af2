// run_options.h: `andweorc run`'s options as given, and the values they
// stand for once checked.
//
// Contract: check_run_options accepts options only when every value is in
// range (sample period 100us..1s, experiment time 1ms..60s, --fixed-line
// FILE:LINE with LINE > 0, --max-time >= 100ms, --until-stable only with
// experiments that are not end-to-end); otherwise it returns nullopt with
// *error set to the one-line message for the user (without "andweorc: ").
// --detached refuses what needs the user's terminal: --live-tty, and
// --live-json - (standard output is then the session's log).
#ifndef ANDWEORC_CLI_RUN_OPTIONS_H_
#define ANDWEORC_CLI_RUN_OPTIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/probe_options.h"

namespace andweorc::cli {

struct RunOptions {
  std::string output = "profile.json";
  std::vector<std::string> binary_scope;
  std::vector<std::string> source_scope;
  std::string sample_period = "1ms";
  std::string sampler = "auto";
  std::string keep_raw;
  size_t top = 10;
  bool quiet = false;
  bool no_progress = false;
  // Fork children take part in the experiments and the tool waits for every
  // descendant (--follow-forks, the default); off: experiments stay in the
  // first process and only the direct child is waited for.
  bool follow_forks = true;
  // --split-points process|executable: "" adds each point up over the tree.
  std::string split_points;
  // causal experiments (names as Coz's where Coz has them)
  bool no_experiments = false;
  std::string fixed_line;
  int fixed_speedup = -1;
  bool end_to_end = false;
  std::string experiment_time = "200ms";
  uint64_t seed = 0;
  std::string granularity = "adaptive";
  std::string delay_mode = "sleep";
  std::string format;  // json or coz; default from the output's extension
  bool until_stable = false;
  std::string max_time;  // "" = no limit
  ProbeOptions probes;   // --progress/--latency without annotations
  // The live view (live_options.h, docs/live.md).
  std::string live_json;     // --live-json FILE or "-"; "" = none
  bool live = false;         // --live given
  bool live_tty = false;     // --live-tty: the view on standard error
  std::string live_address;  // its ADDR:PORT; "" = 127.0.0.1, any port
  // --detached: return once the program runs; a tool left behind writes
  // the profile at its end (detached_session.h, docs/live.md).
  bool detached = false;
};

// What the checked options stand for.
struct RunSettings {
  uint64_t period_ns = 0;
  uint64_t experiment_ns = 0;
  std::optional<uint64_t> max_time_ns;  // unset: no limit
  std::string format;                   // "json" or "coz"
  // --sampler auto on a machine where a perf sample is expensive
  // (sampler_calibration.h): the timer, and the sentence that says why.
  bool timer_chosen = false;
  std::string sampler_note;
};

std::optional<RunSettings> check_run_options(const RunOptions& o,
                                             std::string* error);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_RUN_OPTIONS_H_
