// probe_options.h: `run`'s --progress NAME=FUNCTION|FILE:LINE, --latency
// NAME=FUNCTION, --trace FUNCTION and --probe-mechanism, resolved into the
// runtime's environment.
#ifndef ANDWEORC_CLI_PROBE_OPTIONS_H_
#define ANDWEORC_CLI_PROBE_OPTIONS_H_

#include <string>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

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

// The file execvp would run for `name` (a name without '/' is looked up in
// PATH).
std::string find_executable(const std::string& name);

// A probe added from the live page (docs/live.md "Probes from the page"),
// `kind` "progress" (NAME=TARGET as --progress), "latency" (as --latency:
// FUNCTION, or FILE:LINE,FILE:LINE) or "trace" (TARGET is the FUNCTION, as
// --trace), resolved in `binary` exactly as the run's options resolve it
// (the same errors; an ambiguous name lists the candidates), every address
// planned for in-process patching (a live probe is always patched: no
// kernel event is opened in a running program). On success the
// ANDWEORC_PROBES lines with their plans and the number of addresses;
// otherwise false and *error ("cannot patch safely: ..." for an address
// the planner refuses), and nothing is to be sent.
bool live_probe_lines(const std::string& binary, const std::string& kind,
                      const std::string& name, const std::string& target,
                      std::string* lines, size_t* sites, std::string* error);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_PROBE_OPTIONS_H_
