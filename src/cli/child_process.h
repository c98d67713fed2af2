// child_process.h: runs the profiled command and waits for it.
//
// The child gets our stdin/stdout/stderr unchanged. SIGINT/SIGTERM/SIGHUP/
// SIGQUIT sent to `andweorc` are forwarded to the child; a terminal's Ctrl-C
// already reaches the child (same process group), so it is not sent twice.
#ifndef ANDWEORC_CLI_CHILD_PROCESS_H_
#define ANDWEORC_CLI_CHILD_PROCESS_H_

#include <signal.h>

#include <functional>
#include <string>
#include <vector>

namespace andweorc::cli {

// The signals that ask `andweorc run` to stop: forwarded to the program
// while it runs (run_child), and taken by FinishGuard once it has ended.
inline constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct ChildResult {
  bool started = false;
  std::string error;    // why it could not start (one line)
  int exit_status = 0;  // when it exited
  int signal = 0;       // when a signal killed it
  // Processes the program started that were still running when the wait
  // for them (ANDWEORC_DESCENDANT_WAIT_S, default 10 s) ran out; nonzero
  // means some are left (their raw files may still grow).
  int descendants_left = 0;
};

// `env` entries are "NAME=value" and replace same-named variables. After the
// program exits, waits (bounded) for the processes it left behind (we are
// their subreaper), so that their raw data is complete when it is read.
// With `wait_for_tree` false (--no-follow-forks) only the direct child is
// waited for. `on_started` (optional) is called with the child's pid once
// its exec has succeeded (`run --detached` reports it then).
ChildResult run_child(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env,
                      bool wait_for_tree = true,
                      const std::function<void(int pid)>& on_started = nullptr);

// The pid of the child run_child is waiting for; 0 when there is none.
int running_child_pid();

// The processes below us that a terminal's Ctrl-C would reach: the program
// and its descendants in our process group (or the program's own), forks
// and orphans we reap as subreaper included; not daemons that left for a
// session of their own.
std::vector<int> program_tree_pids();
// The numbered entries of a directory: /proc's processes, /proc/N/task's
// threads. Empty when it cannot be read (the process is gone).
std::vector<long> numbered_entries(const char* dir);
// Sends `sig` to each of them: how `run` stops the program (--until-stable,
// --max-time): the direct child alone left a prefork server's workers
// running, and the tool waited for them until the descendant wait ran out.
void signal_program_tree(int sig);

// The shell convention for a status: exit code, or 128 + signal.
int shell_status(const ChildResult& r);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_CHILD_PROCESS_H_
