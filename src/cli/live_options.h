// live_options.h: the live options of `andweorc run` and `andweorc attach`
// (--live, --live-json, --live-tty) and the live session they start
// (src/live, docs/live.md).
#ifndef ANDWEORC_CLI_LIVE_OPTIONS_H_
#define ANDWEORC_CLI_LIVE_OPTIONS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/progress_display.h"
#include "cli/run_options.h"
#include "live/live_session.h"
#include "profile/profile.h"

namespace CLI {
class App;
}  // namespace CLI

namespace andweorc::cli {

void add_live_options(CLI::App* cmd, RunOptions* o);

// Copies whether --live was given into `o` (CLI11 keeps it in the option).
void note_live_options(CLI::App* cmd, RunOptions* o);

// nullptr without --live, --live-json or --live-tty. On a bad address, a
// file that cannot be created, a port in use or --live-tty without a
// terminal on standard error: nullptr and *error. Prints the page's URL on
// standard error. With --live, the page's controls: the control file in
// `data_dir` (when experiments run and are not end-to-end; the runtime is
// told of it by ANDWEORC_CONTROL, see live_control_environment()) and
// snapshots of the raw records so far next to --output. `decorate`
// (optional) adds to each snapshot what the final profile gets beyond
// profile_of_run() (attach's warning). The page's probes are resolved in
// `binary` ("": the file command[0] runs). `join`: `data_dir` is a run
// going on (a `run --detached` session followed by `attach`): its control
// file, if it has one, is joined, not created. `tty_keys`: --live-tty
// reads keys from its terminal (the program does not read it).
std::unique_ptr<live::LiveSession> start_live(
    const RunOptions& o, const RunSettings& settings,
    const std::vector<std::string>& command, const std::string& data_dir,
    bool* failed, std::string* error,
    std::function<void(profile::Profile*)> decorate = nullptr,
    const std::string& binary = "", bool join = false, bool tty_keys = false);

// The runtime's environment for the live controls (nothing without them).
std::vector<std::string> live_control_environment(
    const live::LiveSession* session);

// Where the n-th snapshot of a run writing `output` goes: next to it, its
// name with ".snapshot-N" before the extension (always a JSON profile).
std::string snapshot_path(const std::string& output, int n);

// For `attach` (injected, or following a detached session): the live
// outputs follow the raw files in `data_dir` as under `run`, without the
// status line attach never drew. Nothing without `live`.
void follow_raw_files(std::optional<ProgressDisplay>* progress,
                      live::LiveSession* live, const std::string& data_dir,
                      bool experiments);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_LIVE_OPTIONS_H_
