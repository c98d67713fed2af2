// line_cache_prefill_test.cc: what `run` and `attach` put in the line cache
// before the program starts, and what they tell the runtime.
#include "cli/line_cache_prefill.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "support/temp_dir.h"
#include "symbols/line_cache.h"

namespace andweorc::cli {
namespace {

namespace fs = std::filesystem;

class LineCachePrefill : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* saved = getenv("ANDWEORC_CACHE_DIR");
    had_ = saved != nullptr;
    if (had_) saved_ = saved;
    setenv("ANDWEORC_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_)
      setenv("ANDWEORC_CACHE_DIR", saved_.c_str(), 1);
    else
      unsetenv("ANDWEORC_CACHE_DIR");
  }
  size_t entries() const {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(dir_ + "/lines", ec);
         !ec && it != fs::directory_iterator{}; ++it)
      ++n;
    return n;
  }
  andweorc::testing::TempDir tmp_;
  const std::string dir_ = tmp_.path();
  std::string saved_;
  bool had_ = false;
};

TEST_F(LineCachePrefill, FillsTheCacheOnceAndNamesItForTheRuntime) {
  RunOptions o;
  std::vector<std::string> env;
  prefill_line_cache(o, PREFILL_FIXTURE, &env);
  ASSERT_EQ(env, std::vector<std::string>{"ANDWEORC_LINE_CACHE=" + dir_});
  ASSERT_EQ(entries(), 1u);
  // The entry holds the program's lines, readable as the runtime reads it.
  fs::path entry = fs::directory_iterator(dir_ + "/lines")->path();
  symbols::ModuleLines lines;
  std::string error;
  ASSERT_TRUE(symbols::read_line_cache(entry, &lines, &error)) << error;
  EXPECT_FALSE(lines.ranges.empty());
  // A second run finds it: nothing new.
  auto written = fs::last_write_time(entry);
  env.clear();
  prefill_line_cache(o, PREFILL_FIXTURE, &env);
  EXPECT_EQ(env.size(), 1u);
  EXPECT_EQ(entries(), 1u);
  EXPECT_GE(fs::last_write_time(entry), written);  // touched: used last
}

TEST_F(LineCachePrefill, NothingWithoutExperimentsOrWithTheCacheOff) {
  RunOptions o;
  o.no_experiments = true;
  std::vector<std::string> env;
  prefill_line_cache(o, PREFILL_FIXTURE, &env);
  EXPECT_TRUE(env.empty());
  o.no_experiments = false;
  setenv("ANDWEORC_CACHE_DIR", "off", 1);
  prefill_line_cache(o, PREFILL_FIXTURE, &env);
  EXPECT_TRUE(env.empty());
  EXPECT_EQ(entries(), 0u);
}

// What the cache cannot describe is left to the runtime, which reads DWARF
// (or says why it cannot) as without a cache.
TEST_F(LineCachePrefill, ProgramsItCannotDescribeAreLeftToTheRuntime) {
  RunOptions o;
  std::vector<std::string> env;
  prefill_line_cache(o, PREFILL_NO_DWARF, &env);  // no debug info
  prefill_line_cache(o, "no-such-program-anywhere", &env);
  o.binary_scope = {"*libsomething*"};  // the program is out of scope
  prefill_line_cache(o, PREFILL_FIXTURE, &env);
  EXPECT_EQ(env.size(), 3u);  // the runtime may still fill the cache
  EXPECT_EQ(entries(), 0u);
}

}  // namespace
}  // namespace andweorc::cli
