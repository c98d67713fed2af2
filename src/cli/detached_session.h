// detached_session.h: `run --detached`: the session a detached run leaves
// in its directory (session.json, output.log), how `status` and `stop` find
// it from a directory or a pid, and the hand-off between the tool that
// returns at once and the one that stays with the program (docs/live.md,
// "Detached runs").
#ifndef ANDWEORC_CLI_DETACHED_SESSION_H_
#define ANDWEORC_CLI_DETACHED_SESSION_H_

#include <optional>
#include <string>
#include <vector>

namespace andweorc::cli {

struct Session {
  std::string state = "starting";  // "running", "finished"
  int tool_pid = 0;                // the tool that stayed (the supervisor)
  int pid = 0;                     // the program
  std::vector<std::string> command;
  std::string output;    // the profile, absolute
  std::string log;       // the program's and the tool's output
  std::string live;      // the page's URL, "" without --live
  double started_s = 0;  // Unix time
  double ended_s = 0;
  int exit_status = -1;  // the shell's convention; -1 while unknown
  std::string stopped_because;
  bool profile_written = false;
  size_t experiments = 0;  // in the written profile
  std::string error;       // why the run or the profile failed
};

inline constexpr const char* kSessionFile = "session.json";
inline constexpr const char* kSessionLog = "output.log";
// Made by `andweorc stop` before it signals the tool: the program's end is
// then the user's request, not its failure.
inline constexpr const char* kStopFile = "stop";

// Written to DIR/session.json atomically (a reader never sees half).
bool write_session(const std::string& dir, const Session& s,
                   std::string* error);
std::optional<Session> read_session(const std::string& dir, std::string* error);

// The session directory named by `arg`: a directory holding session.json,
// or the pid of a process a detached run profiles (its environment names
// the directory). "" and *error otherwise.
std::string find_session(const std::string& arg, std::string* error);

// The whole file, "" (or what was read) on an error; never throws (a /proc
// file of a process that exits meanwhile).
std::string read_whole_file(const std::string& path);

// Whether a process is alive (not a zombie).
bool process_running(int pid);

// Removes the directory's raw records (and the control file), keeping the
// session file and the log.
void remove_raw_files(const std::string& dir);

// The fork of `run --detached`, before any thread exists. In the caller (the
// tool the user ran) it waits until the supervisor has started the program
// (it calls detach_ready() then) or has given up, prints what
// detached_report() says, and returns the tool's exit status. In the
// supervisor it returns nullopt, with the session started: a new session
// (setsid), standard input from /dev/null, standard output and error
// appended to DIR/output.log.
// When the supervisor gives up before the program runs, the directory is
// removed if `remove_on_failure` (a directory of our own, not --keep-raw's).
std::optional<int> detach(const std::string& dir, bool quiet,
                          bool remove_on_failure);

// In the supervisor: the program runs; writes the session and releases the
// waiting tool.
void detach_ready(const std::string& dir, const Session& s);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_DETACHED_SESSION_H_
