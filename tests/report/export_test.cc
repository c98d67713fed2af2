// export_test.cc: folded stacks, speedscope JSON and pprof, each checked by
// structure (and the text formats by golden files in tests/report/golden/;
// ANDWEORC_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pprof_check.h"
#include "profile.pb.h"
#include "report/folded_writer.h"
#include "report/pprof_writer.h"
#include "report/speedscope_writer.h"
#include "support/golden.h"

namespace andweorc::report {
namespace {

using profile::Profile;

using ::andweorc::testing::expect_golden;

// Frames: 0 hash (inlined into 1), 1 lookup, 2 main, 3 memcpy (libc),
// 4 unknown, 5 a name with ';'. Labels: 0 endpoint=search, 1 tenant=a.
Profile sample_profile() {
  Profile p;
  p.run.command = {"./server"};
  p.run.sample_period_ns = 1000000;
  p.run.duration_s = 1.5;
  p.run.start_time = "2024-05-01T12:00:00Z";
  p.run.tool_version = "0.1.0";
  p.processes = {{7, "/bin/server", true}};
  p.frames = {{"hash", "/src/h.h", 3, "/bin/server", true, true},
              {"lookup", "/src/t.cc", 10, "/bin/server", false, true},
              {"main", "/src/m.cc", 5, "/bin/server", false, true},
              {"memcpy", "", 0, "/lib/libc.so.6", false, false},
              {"", "", 0, "", false, false},
              {"f(a;b)", "/src/m.cc", 9, "/bin/server", false, true}};
  p.labels = {{"endpoint", "search"}, {"tenant", "a"}};
  p.stacks = {{{0, 1, 2}, 40, {0, 1}},  // search inside tenant a
              {{3, 1, 2}, 10, {0}},
              {{5, 2}, 7, {}},
              {{4}, 2, {}},
              {{}, 1, {}}};
  p.samples = 60;
  return p;
}

TEST(Folded, MatchesGoldenAndSumsToTheSamples) {
  std::ostringstream out;
  write_folded(sample_profile(), out);
  expect_golden("labels.folded", out.str());
  std::istringstream lines(out.str());
  std::string line;
  uint64_t total = 0;
  while (std::getline(lines, line)) {
    size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    total += std::stoull(line.substr(space + 1));
    std::string stack = line.substr(0, space);
    EXPECT_FALSE(stack.empty());
    EXPECT_EQ(stack.find("f(a;b)"), std::string::npos) << "';' kept in a name";
  }
  EXPECT_EQ(total, 60u);
  // Root first, outermost label first.
  EXPECT_NE(out.str().find("[label tenant=a];[label endpoint=search];main;"
                           "lookup;hash 40\n"),
            std::string::npos);
}

TEST(Speedscope, MatchesGoldenAndIsConsistent) {
  std::ostringstream out;
  write_speedscope(sample_profile(), out);
  expect_golden("labels.speedscope.json", out.str());
  auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["$schema"],
            "https://www.speedscope.app/file-format-schema.json");
  size_t nframes = doc["shared"]["frames"].size();
  EXPECT_EQ(nframes, 6u + 2u);            // profile frames + one per label
  ASSERT_EQ(doc["profiles"].size(), 3u);  // all + one per label
  for (const auto& prof : doc["profiles"]) {
    EXPECT_EQ(prof["type"], "sampled");
    EXPECT_EQ(prof["unit"], "nanoseconds");
    ASSERT_EQ(prof["samples"].size(), prof["weights"].size());
    uint64_t sum = 0;
    for (const auto& w : prof["weights"]) sum += w.get<uint64_t>();
    EXPECT_EQ(prof["endValue"].get<uint64_t>(), sum);
    for (const auto& stack : prof["samples"])
      for (const auto& f : stack) EXPECT_LT(f.get<size_t>(), nframes);
  }
  EXPECT_EQ(doc["profiles"][0]["endValue"], 60u * 1000000u);
  EXPECT_EQ(doc["profiles"][1]["name"], "endpoint=search");
  EXPECT_EQ(doc["profiles"][1]["endValue"], 50u * 1000000u);
  EXPECT_EQ(doc["profiles"][2]["name"], "tenant=a");
  EXPECT_EQ(doc["profiles"][2]["endValue"], 40u * 1000000u);
}

TEST(Pprof, PassesTheIndependentChecks) {
  std::string gz = pprof_gzipped(sample_profile());
  ASSERT_FALSE(gz.empty());
  EXPECT_EQ(uint8_t(gz[0]), 0x1f);  // gzip magic
  EXPECT_EQ(uint8_t(gz[1]), 0x8b);
  ::andweorc::testing::PprofSummary s = ::andweorc::testing::check_pprof(gz);
  ASSERT_EQ(s.error, "");
  EXPECT_EQ(s.sample_types, 2u);
  EXPECT_EQ(s.samples, 60);
  EXPECT_EQ(s.cpu_ns, 60 * 1000000);
  EXPECT_EQ(s.period, 1000000);
  EXPECT_EQ(s.leaf_samples["hash"], 40);  // the inlined function is the leaf
  EXPECT_EQ(s.leaf_samples["memcpy"], 10);
  EXPECT_EQ(s.leaf_samples["[unknown]"], 2);
  EXPECT_EQ(s.label_leaf_samples["endpoint=search"]["hash"], 40);
  EXPECT_EQ(s.label_leaf_samples["endpoint=search"]["memcpy"], 10);
  EXPECT_EQ(s.label_leaf_samples["tenant=a"]["hash"], 40);
  EXPECT_EQ(s.label_leaf_samples.size(), 2u);
}

TEST(Pprof, InlinedFramesShareOneLocation) {
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(pprof_message(sample_profile())));
  const auto& first = p.sample(0);
  ASSERT_EQ(first.location_id_size(), 2);  // [hash+lookup], [main]
  const perftools::profiles::Location* leaf = nullptr;
  for (const auto& l : p.location())
    if (l.id() == first.location_id(0)) leaf = &l;
  ASSERT_NE(leaf, nullptr);
  ASSERT_EQ(leaf->line_size(), 2);
  EXPECT_EQ(leaf->line(0).line(), 3);   // hash, innermost
  EXPECT_EQ(leaf->line(1).line(), 10);  // lookup, the caller
  EXPECT_EQ(p.string_table(int(p.mapping(0).filename())), "/bin/server");
  EXPECT_EQ(p.time_nanos(), 1714564800LL * 1000000000LL);
  EXPECT_EQ(p.duration_nanos(), 1500000000LL);
}

TEST(Pprof, EmptyProfileIsStillValid) {
  Profile p;
  ::andweorc::testing::PprofSummary s =
      ::andweorc::testing::check_pprof(pprof_gzipped(p));
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.samples, 0);
}

}  // namespace
}  // namespace andweorc::report
