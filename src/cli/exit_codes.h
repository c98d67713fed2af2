// exit_codes.h: what `andweorc` returns, so scripts and CI can rely on it.
#ifndef ANDWEORC_CLI_EXIT_CODES_H_
#define ANDWEORC_CLI_EXIT_CODES_H_

namespace andweorc::cli {

inline constexpr int kExitOk = 0;
// `diff`: a --fail-on rule was broken (a regression for CI).
inline constexpr int kExitRegression = 1;
// Bad usage or bad input (unknown option, missing command, unreadable or
// corrupt profile). `run` otherwise returns the profiled program's status.
inline constexpr int kExitUsage = 2;
// `attach`: the process could not be attached to (ptrace not permitted,
// already traced or profiled) or the profiler could not be stopped in it.
inline constexpr int kExitAttachRefused = 3;

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_EXIT_CODES_H_
