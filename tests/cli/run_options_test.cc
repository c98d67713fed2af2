// run_options_test.cc: `andweorc run`'s option checks and the environment
// it hands the runtime.
#include "cli/run_options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/run_environment.h"

namespace andweorc::cli {
namespace {

std::string refused(const RunOptions& o) {
  std::string error;
  EXPECT_FALSE(check_run_options(o, &error).has_value());
  return error;
}

TEST(RunOptions, DefaultsAreAcceptedAndStandForTheirValues) {
  std::string error;
  std::optional<RunSettings> s = check_run_options(RunOptions{}, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->period_ns, 1000000u);
  EXPECT_EQ(s->experiment_ns, 200000000u);
  EXPECT_FALSE(s->max_time_ns);
  EXPECT_EQ(s->format, "json");
  RunOptions coz;
  coz.output = "profile.coz";
  EXPECT_EQ(check_run_options(coz, &error)->format, "coz");
}

TEST(RunOptions, OutOfRangeValuesAreRefusedWithTheOption) {
  RunOptions o;
  o.sample_period = "10us";
  EXPECT_EQ(refused(o),
            "--sample-period must be between 100us and 1s (e.g. 1ms), got "
            "'10us'");
  o = {};
  o.experiment_time = "2m";
  EXPECT_NE(refused(o).find("--experiment-time"), std::string::npos);
  o = {};
  o.fixed_line = "main.cc";
  EXPECT_NE(refused(o).find("FILE:LINE"), std::string::npos);
  o = {};
  o.max_time = "10ms";
  EXPECT_NE(refused(o).find("--max-time"), std::string::npos);
  o = {};
  o.until_stable = true;
  o.end_to_end = true;
  EXPECT_NE(refused(o).find("--until-stable"), std::string::npos);
}

TEST(RunEnvironment, ExperimentSettingsOnlyWithExperiments) {
  RunOptions o;
  o.seed = 7;
  std::string error;
  RunSettings s = *check_run_options(o, &error);
  auto has = [](const std::vector<std::string>& env, const std::string& e) {
    return std::find(env.begin(), env.end(), e) != env.end();
  };
  std::vector<std::string> env = runtime_environment(o, s, "/r.so", "/d");
  EXPECT_TRUE(has(env, "ANDWEORC_DATA_DIR=/d"));
  EXPECT_TRUE(has(env, "ANDWEORC_SAMPLE_PERIOD_NS=1000000"));
  EXPECT_TRUE(has(env, "ANDWEORC_EXPERIMENTS=1"));
  EXPECT_TRUE(has(env, "ANDWEORC_EXPERIMENT_TIME_NS=200000000"));
  EXPECT_TRUE(has(env, "ANDWEORC_SEED=7"));
  EXPECT_EQ(env[0].rfind("LD_PRELOAD=/r.so", 0), 0u);
  o.no_experiments = true;
  env = runtime_environment(o, s, "/r.so", "/d");
  EXPECT_FALSE(has(env, "ANDWEORC_EXPERIMENTS=1"));
  EXPECT_FALSE(has(env, "ANDWEORC_SEED=7"));
}

}  // namespace
}  // namespace andweorc::cli
