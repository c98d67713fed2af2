// run_helpers.h: run a command, capture its output and status; find marker
// lines in fixture sources.
#ifndef ANDWEORC_TESTS_E2E_RUN_HELPERS_H_
#define ANDWEORC_TESTS_E2E_RUN_HELPERS_H_

#include <functional>
#include <string>
#include <vector>

namespace andweorc::testing {

struct RunResult {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

// Runs argv to completion. `during(pid)` (optional) runs while it is alive.
RunResult run_command(const std::vector<std::string>& argv,
                      const std::function<void(int)>& during = nullptr);

// The 1-based line in `path` containing `marker`, or 0.
int line_of(const std::string& path, const std::string& marker);

// The whole file at `path`, bytes as they are ("" if it cannot be read).
std::string read_file(const std::string& path);

// A fresh temporary directory, removed by the caller.
std::string temp_dir();

// Waits up to 20 s for the page's URL that `andweorc run|attach --live`
// prints on standard error (redirected to err_path): its port and token;
// false if it did not come.
bool wait_for_live_url(const std::string& err_path, int* port,
                       std::string* token);

}  // namespace andweorc::testing

#endif  // ANDWEORC_TESTS_E2E_RUN_HELPERS_H_
