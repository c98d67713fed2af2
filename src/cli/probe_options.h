// probe_options.h: `run`'s --progress NAME=FUNCTION|FILE:LINE, --latency
// NAME=FUNCTION, --trace FUNCTION and --probe-mechanism, resolved into the
// runtime's environment.
#ifndef ANDWEORC_CLI_PROBE_OPTIONS_H_
#define ANDWEORC_CLI_PROBE_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace andweorc::cli {

struct ProbeOptions {
  std::vector<std::string> progress;  // NAME=FUNCTION or NAME=FILE:LINE
  std::vector<std::string> latency;   // NAME=FUNCTION or FILE:LINE,FILE:LINE
  std::string mechanism = "auto";     // auto, patch, uprobe, breakpoint
  std::vector<std::string> trace;     // FUNCTION: each call's duration
};

void add_probe_options(CLI::App* cmd, ProbeOptions* o);

// Resolves every --progress and --latency in the command's executable and
// checks that a mechanism can count them. On success appends ANDWEORC_PROBES
// and ANDWEORC_PROBE_MECHANISM to *env and returns 0; otherwise prints one line
// and returns kExitUsage, before anything runs.
int probe_environment(const ProbeOptions& o,
                      const std::vector<std::string>& command, bool quiet,
                      std::vector<std::string>* env);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_PROBE_OPTIONS_H_
