// coordinator_config.cc: see coordinator_config.h.
#include "coordinator/coordinator_config.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "planner/experiment_planner.h"
#include "runtime/attach_settings.h"

namespace andweorc::coordinator {
namespace {

// The environment, or the settings file of `andweorc attach`.
std::string env(const char* name) {
  const char* v = runtime::runtime_setting(name);
  return v ? v : "";
}

uint64_t env_u64(const char* name, uint64_t fallback) {
  std::string v = env(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  return (end && *end == '\0') ? n : fallback;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

}  // namespace

CoordinatorConfig config_from_environment() {
  CoordinatorConfig c;
  c.experiments = env("ANDWEORC_EXPERIMENTS") == "1";
  c.binary_scope = lines(env("ANDWEORC_BINARY_SCOPE"));
  c.source_scope = lines(env("ANDWEORC_SOURCE_SCOPE"));
  c.fixed_line = env("ANDWEORC_FIXED_LINE");
  c.line_cache = env("ANDWEORC_LINE_CACHE");
  std::string speedup = env("ANDWEORC_FIXED_SPEEDUP");
  if (!speedup.empty())
    c.fixed_speedup = int(env_u64("ANDWEORC_FIXED_SPEEDUP", 0));
  if (c.fixed_speedup > 100) c.fixed_speedup = 100;
  c.end_to_end = env("ANDWEORC_END_TO_END") == "1";
  c.experiment_ns = env_u64("ANDWEORC_EXPERIMENT_TIME_NS", c.experiment_ns);
  c.cooloff_ns = env_u64("ANDWEORC_COOLOFF_NS", c.cooloff_ns);
  c.seed = env_u64("ANDWEORC_SEED", 0);
  c.function_granularity = env("ANDWEORC_GRANULARITY") == "function";
  c.auto_granularity = env("ANDWEORC_GRANULARITY") == "auto";
  c.adaptive_granularity = env("ANDWEORC_GRANULARITY") == "adaptive" ||
                           env("ANDWEORC_GRANULARITY").empty();
  c.period_ns = env_u64("ANDWEORC_SAMPLE_PERIOD_NS", c.period_ns);
  c.delay_ramps = env("ANDWEORC_DELAY_RAMP") == "1";
  c.delay_credit = env("ANDWEORC_DELAY_CREDIT") == "1";
  c.leader_allocation = env("ANDWEORC_LEADER_ALLOCATION") == "1";
  c.virtual_floor = env("ANDWEORC_VIRTUAL_FLOOR") == "1";
  c.measured_length = env("ANDWEORC_MEASURED_LENGTH") == "1";
  c.rank_depth = int(std::min<uint64_t>(
      env_u64("ANDWEORC_RANK_DEPTH", uint64_t(c.rank_depth)), 100));
  c.speedup_levels = planner::parse_levels(env("ANDWEORC_SPEEDUP_LEVELS"));
  c.mirrored_pairs = env("ANDWEORC_BLOCK_ORDER") != "random";
  c.split_points = runtime::split_points_from(env("ANDWEORC_SPLIT_POINTS"));
  return c;
}

}  // namespace andweorc::coordinator
