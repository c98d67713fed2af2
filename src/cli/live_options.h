// live_options.h: `andweorc run`'s live options (--live, --live-json,
// --live-tty) and
// the live session they start (src/live, docs/live.md).
#ifndef ANDWEORC_CLI_LIVE_OPTIONS_H_
#define ANDWEORC_CLI_LIVE_OPTIONS_H_

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/run_options.h"
#include "live/live_session.h"

namespace andweorc::cli {

void add_live_options(CLI::App* cmd, RunOptions* o);

// Copies whether --live was given into `o` (CLI11 keeps it in the option).
void note_live_options(CLI::App* cmd, RunOptions* o);

// nullptr without --live, --live-json or --live-tty. On a bad address, a
// file that cannot be created, a port in use or --live-tty without a
// terminal on standard error: nullptr and *error. Prints the page's URL on
// standard error.
std::unique_ptr<live::LiveSession> start_live(
    const RunOptions& o, const std::vector<std::string>& command, bool* failed,
    std::string* error);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_LIVE_OPTIONS_H_
