// run_environment.cc: the runtime's environment and data directory
// (run_environment.h).
#include "cli/run_environment.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace andweorc::cli {
namespace {

namespace fs = std::filesystem;

// Scopes are one glob a line.
std::string joined_lines(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

}  // namespace

// A private directory for the runtime's raw files.
std::string make_data_dir(std::string* error) {
  std::error_code ec;
  fs::path base = fs::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string templ = (base / "andweorc-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) {
    *error = "cannot create a temporary directory in " + base.string() + ": " +
             std::strerror(errno);
    return "";
  }
  return templ;
}

std::vector<std::string> runtime_environment(const RunOptions& o,
                                             const RunSettings& settings,
                                             const std::string& runtime,
                                             const std::string& data_dir) {
  std::string preload = runtime;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;
  std::vector<std::string> env = {
      "LD_PRELOAD=" + preload,
      "ANDWEORC_DATA_DIR=" + data_dir,
      "ANDWEORC_SAMPLE_PERIOD_NS=" + std::to_string(settings.period_ns),
  };
  if (o.sampler == "timer") env.push_back("ANDWEORC_SAMPLER=timer");
  // The profile says why (RunSettings::sampler_note), not the runtime.
  if (o.sampler == "auto" && settings.timer_chosen)
    env.push_back("ANDWEORC_SAMPLER=timer-auto");
  env.push_back(std::string("ANDWEORC_PROCESS_TREE=") +
                (o.follow_forks ? "1" : "0"));
  if (!o.split_points.empty())
    env.push_back("ANDWEORC_SPLIT_POINTS=" + o.split_points);
  env.push_back("ANDWEORC_BINARY_SCOPE=" + joined_lines(o.binary_scope));
  env.push_back("ANDWEORC_SOURCE_SCOPE=" + joined_lines(o.source_scope));
  if (!o.no_experiments) {
    env.push_back("ANDWEORC_EXPERIMENTS=1");
    env.push_back("ANDWEORC_EXPERIMENT_TIME_NS=" +
                  std::to_string(settings.experiment_ns));
    env.push_back("ANDWEORC_GRANULARITY=" + o.granularity);
    env.push_back("ANDWEORC_DELAY_MODE=" + o.delay_mode);
    if (o.seed != 0) env.push_back("ANDWEORC_SEED=" + std::to_string(o.seed));
    if (!o.fixed_line.empty())
      env.push_back("ANDWEORC_FIXED_LINE=" + o.fixed_line);
    if (o.fixed_speedup >= 0)
      env.push_back("ANDWEORC_FIXED_SPEEDUP=" +
                    std::to_string(o.fixed_speedup));
    if (o.end_to_end) env.push_back("ANDWEORC_END_TO_END=1");
  }
  return env;
}

}  // namespace andweorc::cli
