// run_environment.h: what `andweorc run` hands the runtime: the
// environment of the ANDWEORC_* protocol (read by src/runtime and
// src/coordinator at start-up) and the private directory its raw records go
// to.
#ifndef ANDWEORC_CLI_RUN_ENVIRONMENT_H_
#define ANDWEORC_CLI_RUN_ENVIRONMENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cli/run_options.h"

namespace andweorc::cli {

// A new private directory for the runtime's raw files under the temporary
// directory; "" with *error set when it cannot be made.
std::string make_data_dir(std::string* error);

// "NAME=value" entries: LD_PRELOAD (the runtime first, then any preload of
// ours), the data directory, sample period, sampler, scopes, and, with
// experiments, their settings.
std::vector<std::string> runtime_environment(const RunOptions& o,
                                             const RunSettings& settings,
                                             const std::string& runtime,
                                             const std::string& data_dir);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_RUN_ENVIRONMENT_H_
