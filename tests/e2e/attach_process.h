// attach_process.h: the attach tests' target (programs/attach_target.cc),
// started without andweorc: start it, count its threads, end it and read
// what it printed.
#ifndef ANDWEORC_TESTS_E2E_ATTACH_PROCESS_H_
#define ANDWEORC_TESTS_E2E_ATTACH_PROCESS_H_

#include <sys/types.h>

#include <string>

namespace andweorc::testing {

// The target, its standard input (closing it ends the program) and the
// file its standard output goes to.
struct AttachTarget {
  pid_t pid = -1;
  int stdin_fd = -1;
  std::string out_path;
};

// Starts programs/attach_target with its output in `dir`.
AttachTarget start_attach_target(const std::string& dir);

int thread_count(pid_t pid);

// Waits (bounded, 5 s) until the process runs `n` threads.
bool wait_for_threads(pid_t pid, int n);

// Ends the program (closes its input); its exit status (or -1) and output.
int finish_attach_target(AttachTarget& t, std::string* out);

}  // namespace andweorc::testing

#endif  // ANDWEORC_TESTS_E2E_ATTACH_PROCESS_H_
