// commands.h: one entry point per subcommand; each adds itself to the CLI11
// app and runs when selected.
#ifndef ANDWEORC_CLI_COMMANDS_H_
#define ANDWEORC_CLI_COMMANDS_H_

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace andweorc::cli {

// Returns the exit status to use once `app` has parsed the arguments.
using CommandRunner = std::function<int()>;

// `command` is what followed `--` (or Coz's `---`) on the command line.
CommandRunner add_run_command(CLI::App& app,
                              const std::vector<std::string>& command);
CommandRunner add_report_command(CLI::App& app);
// `diff A1 A2 -- B1 B2`: main.cc hands the `--` between the two sides of a
// diff to CLI11 as this token, so options may come anywhere.
inline constexpr const char* kDiffSeparator = "\x1f--";
CommandRunner add_diff_command(CLI::App& app);
CommandRunner add_merge_command(CLI::App& app);
// `attach PID`: profile a running process (attach_command.cc).
CommandRunner add_attach_command(CLI::App& app);
// `status` and `stop` of a `run --detached` (session_command.cc).
CommandRunner add_status_command(CLI::App& app);
CommandRunner add_stop_command(CLI::App& app);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_COMMANDS_H_
