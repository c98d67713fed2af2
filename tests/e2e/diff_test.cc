// diff_test.cc: `andweorc diff` on two real runs of examples/diff_demo, the
// version with a slow compressing stage and the one where it was fixed.
// Short runs (about 3 s each): the sampling shares are clear at once, the
// causal verdicts need the longer runs of examples/diff_demo/run.sh.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_helpers.h"

namespace andweorc::testing {
namespace {

TEST(DiffEndToEnd, NamesTheFixedStage) {
  std::string dir = temp_dir();
  RunResult base =
      run_command({ANDWEORC_BIN, "run", "-q", "-o", dir + "/base.json", "--",
                   DIFF_DEMO_BASE, "1800"});
  ASSERT_EQ(base.status, 0) << base.err;
  RunResult next =
      run_command({ANDWEORC_BIN, "run", "-q", "-o", dir + "/new.json", "--",
                   DIFF_DEMO_NEW, "6000"});
  ASSERT_EQ(next.status, 0) << next.err;

  RunResult diff =
      run_command({ANDWEORC_BIN, "diff", dir + "/base.json", dir + "/new.json",
                   "--format", "json", "--fail-on", "share-increase=30"});
  // checksum_batch goes from ~20% to ~80% of the samples: the rule fires.
  ASSERT_EQ(diff.status, 1) << diff.err << diff.out;
  auto j = nlohmann::json::parse(diff.out);
  ASSERT_GE(j["function_shares"].size(), 2u);
  std::map<std::string, double> change;
  for (const auto& f : j["function_shares"]) {
    change[f["function"].get<std::string>()] = f["change"].get<double>();
  }
  EXPECT_LT(change["compress_batch"], -0.3) << diff.out;
  EXPECT_GT(change["checksum_batch"], 0.3) << diff.out;
  ASSERT_EQ(j["findings"].size(), 1u) << diff.out;
  EXPECT_NE(
      j["findings"][0]["reason"].get<std::string>().find("checksum_batch"),
      std::string::npos);
  // The fixed version does 4x less work per batch on the critical path.
  const auto& point = j["points"][0];
  if (!point["speedup"].is_null()) {
    EXPECT_GT(point["speedup"].get<double>(), 0.3) << diff.out;
  }

  RunResult md = run_command({ANDWEORC_BIN, "diff", dir + "/base.json",
                              dir + "/new.json", "--format", "markdown"});
  EXPECT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find("`compress_batch`"), std::string::npos) << md.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace andweorc::testing
