// json_report_test.cc: the JSON writer emits the readable file format.
#include "report/json_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "profile/profile_json.h"

namespace andweorc::report {
namespace {

profile::Profile sample() {
  profile::Profile p;
  p.run.command = {"./a"};
  p.run.sampler = "perf";
  p.samples = 3;
  p.frames = {{"main", "/src/a.c", 3, "/bin/a", false, true}};
  p.stacks = {{{0}, 3}};
  return p;
}

TEST(JsonReport, PrettyOutputIsTheProfileFile) {
  std::ostringstream out;
  write_json(sample(), out);
  EXPECT_EQ(out.str(), profile::dump_profile(sample()));
  profile::ReadResult r = profile::parse_profile(out.str());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, sample());
}

TEST(JsonReport, CompactIsOneLine) {
  std::ostringstream out;
  write_json(sample(), out, JsonOptions{.pretty = false});
  std::string s = out.str();
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1);
  EXPECT_EQ(s.back(), '\n');
  profile::ReadResult r = profile::parse_profile(s);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, sample());
}

}  // namespace
}  // namespace andweorc::report
