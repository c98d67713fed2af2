// matrix_runner.h: runs one hostile program directly or under `andweorc run`,
// in a fresh working directory, bounded by a timeout, and captures what the
// program did: standard output, exit status, files written.
#ifndef ANDWEORC_TESTS_HOSTILE_MATRIX_RUNNER_H_
#define ANDWEORC_TESTS_HOSTILE_MATRIX_RUNNER_H_

#include <map>
#include <string>
#include <vector>

namespace andweorc::hostile {

struct Outcome {
  bool timed_out = false;
  int status = -1;  // exit code, or 128 + signal
  std::string out, err;
  // Every regular file under the working directory: relative path -> bytes.
  std::map<std::string, std::string> files;
  double seconds = 0;
};

struct RunSpec {
  std::vector<std::string> argv;  // program and arguments
  double timeout_s = 60;
  // Extra environment ("NAME=value"), e.g. for the program's own options.
  std::vector<std::string> env;
  // Shell commands run before exec in the child (ulimit-like setup) are not
  // supported; use rlimit fields instead.
  long fsize_limit = -1;  // RLIMIT_FSIZE in bytes, -1: unchanged
};

// Runs spec.argv directly; waits for the program and every process it left
// behind (this process is a subreaper), at most timeout_s in all.
Outcome run_direct(const RunSpec& spec);

// The same under `andweorc run <options> -o <profile> -- argv`.
Outcome run_profiled(const RunSpec& spec, const std::string& profile_path,
                     const std::vector<std::string>& options);

// A fresh temporary directory (removed by remove_tree).
std::string make_temp_dir();
void remove_tree(const std::string& dir);

}  // namespace andweorc::hostile

#endif  // ANDWEORC_TESTS_HOSTILE_MATRIX_RUNNER_H_
