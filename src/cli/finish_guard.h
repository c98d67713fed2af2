// finish_guard.h: keeps a stop signal from losing the profile once the
// program has ended.
//
// While `run` reads the raw records and writes the profile (seconds for a
// long run), the program is gone and nothing is left to forward a signal
// to. A script that stops the tool right after its load driver fails (the
// server stopped first, by --until-stable) sent SIGTERM there, and the
// tool died with the profile unwritten. Within the guard the first
// of kStopSignals (child_process.h) is noted and the profile is finished; a
// second one of them ends the tool as the default action would.
#ifndef ANDWEORC_CLI_FINISH_GUARD_H_
#define ANDWEORC_CLI_FINISH_GUARD_H_

#include <signal.h>

#include <iterator>

#include "cli/child_process.h"

namespace andweorc::cli {

class FinishGuard {
 public:
  FinishGuard();
  ~FinishGuard();  // restores the previous dispositions
  FinishGuard(const FinishGuard&) = delete;
  FinishGuard& operator=(const FinishGuard&) = delete;
  // The first signal taken meanwhile; 0 when none.
  static int received();

 private:
  struct sigaction old_[std::size(kStopSignals)];
};

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_FINISH_GUARD_H_
