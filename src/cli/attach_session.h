// attach_session.h: `andweorc attach PID` on a program started by `andweorc
// run --detached`: it has the runtime already, so nothing is injected; the
// tool follows the session's raw files with the live outputs, its controls
// join the session's control file, and a release leaves the session as it
// was (docs/live.md, "Attaching to a detached run").
#ifndef ANDWEORC_CLI_ATTACH_SESSION_H_
#define ANDWEORC_CLI_ATTACH_SESSION_H_

#include <signal.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cli/run_options.h"

namespace andweorc::cli {

// Follows the session in `dir` (found from process `pid`) until
// `duration_ns`, *interrupted (Ctrl-C and SIGTERM: `on_interrupt` sets it,
// installed once the live view is up) or the program's end; then releases
// it: the probes this attach added are removed and a pause or pin it sent
// is undone, and the program runs on under its own profiler, whose profile
// is written when it ends. Writes no profile of its own. The exit status.
int follow_detached_session(int pid, const std::string& dir,
                            const RunOptions& o,
                            std::optional<uint64_t> duration_ns,
                            const std::string& duration_text,
                            void (*on_interrupt)(int),
                            volatile sig_atomic_t* interrupted);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_ATTACH_SESSION_H_
