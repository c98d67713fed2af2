// experiments_json_test.cc: the 1.1 additions, "settings" and
// "experiments": layout, round trips, 1.0 files, and validation errors.
#include <gtest/gtest.h>

#include <string>

#include "parse_error.h"
#include "profile/profile_json.h"

namespace andweorc::profile {
namespace {

using nlohmann::json;
using testing::error_of;

Profile with_experiments() {
  Profile p;
  p.run.command = {"./a"};
  p.settings.enabled = true;
  p.settings.fixed_speedup = -1;
  p.settings.experiment_time_s = 0.25;
  p.settings.seed = 18446744073709551615ull;
  p.settings.granularity = "function";
  Experiment e;
  e.file = "/src/a.c";
  e.line = 12;
  e.function = "work";
  e.granularity = "function";
  e.speedup_pct = 100;
  e.duration_s = 1.5;
  e.delay_s = 1.75;  // more delay than duration: accepted, analysis skips it
  e.selected_samples = 3;
  e.pid = 77;
  e.points = {{"done", PointKind::kThroughput, 10, 0, 0, 0, 0},
              {"q", PointKind::kLatency, 0, 8, 9, 3, 2}};
  p.experiments = {e, e};
  p.experiments[1].speedup_pct = 0;
  return p;
}

json experiments_doc() { return json::parse(dump_profile(with_experiments())); }

TEST(ExperimentsJson, RoundTrip) {
  Profile p = with_experiments();
  for (int indent : {2, -1}) {
    ReadResult r = parse_profile(dump_profile(p, indent));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(*r.profile, p);
  }
}

TEST(ExperimentsJson, Layout) {
  json j = experiments_doc();
  EXPECT_EQ(j["version"], "1.8");
  EXPECT_EQ(j["settings"]["enabled"], true);
  EXPECT_EQ(j["settings"]["fixed_speedup"], -1);
  EXPECT_EQ(j["settings"]["granularity"], "function");
  EXPECT_EQ(j["experiments"][0]["speedup_pct"], 100);
  EXPECT_EQ(j["experiments"][0]["points"][1]["in_flight_start"], 3);
  EXPECT_EQ(j["experiments"][0]["points"][0]["kind"], "throughput");
  // One line per experiment, like the other record arrays.
  std::string text = dump_profile(with_experiments());
  EXPECT_NE(text.find("\n    {\"file\":\"/src/a.c\",\"line\":12,"
                      "\"function\":\"work\",\"granularity\":\"function\","
                      "\"speedup_pct\":100,"),
            std::string::npos)
      << text;
}

TEST(ExperimentsJson, Version10FileWithoutThemReads) {
  json j = experiments_doc();
  j["version"] = "1.0";
  j.erase("settings");
  j.erase("experiments");
  ReadResult r = parse_profile(j.dump());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->settings, ExperimentSettings{});
  EXPECT_TRUE(r.profile->experiments.empty());
}

// cpu_s (since 1.5) is written when known and absent means unknown.
TEST(ExperimentsJson, CpuTimeIsOptional) {
  Profile p = with_experiments();
  p.experiments[0].cpu_s = 0.375;
  json j = json::parse(dump_profile(p));
  EXPECT_EQ(j["experiments"][0]["cpu_s"], 0.375);
  EXPECT_FALSE(j["experiments"][1].contains("cpu_s"));
  ReadResult r = parse_profile(j.dump());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, p);
  EXPECT_DOUBLE_EQ(r.profile->experiments[1].cpu_s, -1);
  j["experiments"][0]["cpu_s"] = -2;
  EXPECT_NE(error_of(j), "");  // a negative time is bad input
}

// parents (since 1.7) are written when there are any; absent means none.
TEST(ExperimentsJson, ParentsAreOptional) {
  Profile p = with_experiments();
  p.experiments[0].granularity = "line";
  p.experiments[0].parents = {{"outer", "/src/o.c"}, {"work", "/src/a.c"}};
  json j = json::parse(dump_profile(p));
  EXPECT_EQ(j["experiments"][0]["parents"][1]["function"], "work");
  EXPECT_EQ(j["experiments"][0]["parents"][0]["file"], "/src/o.c");
  EXPECT_FALSE(j["experiments"][1].contains("parents"));
  ReadResult r = parse_profile(j.dump());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, p);
  j["experiments"][0]["parents"][1].erase("file");
  EXPECT_NE(error_of(j), "");  // present, every field is required
  j["experiments"][0]["parents"] = "outer";
  EXPECT_NE(error_of(j), "");
}

TEST(ExperimentsJson, NegativeInFlightRoundTrips) {
  Profile p = with_experiments();
  p.experiments[0].points[1].in_flight_start = -5;
  ReadResult r = parse_profile(dump_profile(p));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->experiments[0].points[1].in_flight_start, -5);
}

TEST(ExperimentsJson, NonFiniteDurationsAreWrittenAsZero) {
  Profile p = with_experiments();
  p.experiments[0].duration_s = std::numeric_limits<double>::infinity();
  p.experiments[0].delay_s = -1;
  ReadResult r = parse_profile(dump_profile(p));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->experiments[0].duration_s, 0.0);
  EXPECT_EQ(r.profile->experiments[0].delay_s, 0.0);
}

TEST(ExperimentsJsonErrors, Settings) {
  json j = experiments_doc();
  j["settings"] = 3;
  EXPECT_EQ(error_of(j),
            "p.json: field 'settings' must be an object, not the number 3");
  j = experiments_doc();
  j["settings"].erase("seed");
  EXPECT_EQ(error_of(j), "p.json: missing field 'settings.seed'");
  j = experiments_doc();
  j["settings"]["fixed_speedup"] = 101;
  EXPECT_EQ(error_of(j),
            "p.json: field 'settings.fixed_speedup' must be between -1 and "
            "100, not 101");
  j = experiments_doc();
  j["settings"]["granularity"] = "file";
  EXPECT_EQ(error_of(j),
            "p.json: field 'settings.granularity' must be \"line\" or "
            "\"function\", not \"file\"");
  j = experiments_doc();
  j["settings"]["experiment_time_s"] = -0.5;
  EXPECT_EQ(error_of(j),
            "p.json: field 'settings.experiment_time_s' must be a "
            "non-negative number, not -0.5");
}

TEST(ExperimentsJsonErrors, Experiments) {
  json j = experiments_doc();
  j["experiments"] = json::object();
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments' must be an array, not an object");
  j = experiments_doc();
  j["experiments"][1]["speedup_pct"] = 150;
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[1].speedup_pct' must be between 0 "
            "and 100, not 150");
  j = experiments_doc();
  j["experiments"][0]["duration_s"] = -1;
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[0].duration_s' must be a "
            "non-negative number, not -1");
  j = experiments_doc();
  j["experiments"][0].erase("delay_s");
  EXPECT_EQ(error_of(j), "p.json: missing field 'experiments[0].delay_s'");
  j = experiments_doc();
  j["experiments"][0]["points"][1]["kind"] = "rate";
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[0].points[1].kind' must be "
            "\"throughput\" or \"latency\", not \"rate\"");
  j = experiments_doc();
  j["experiments"][0]["points"][1]["in_flight_end"] = 1.5;
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[0].points[1].in_flight_end' must be "
            "an integer, not the number 1.5");
  j = experiments_doc();
  j["experiments"][0]["points"][1]["in_flight_end"] = 18446744073709551615ull;
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[0].points[1].in_flight_end' is too "
            "large: 18446744073709551615");
  j = experiments_doc();
  j["experiments"][0]["points"][0]["visits"] = -3;
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[0].points[0].visits' must be a "
            "non-negative integer, not the number -3");
  j = experiments_doc();
  j["experiments"][1]["pid"] = "77";
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[1].pid' must be an integer, not a "
            "string");
  j = experiments_doc();
  j["experiments"][0] = nullptr;
  EXPECT_EQ(error_of(j),
            "p.json: field 'experiments[0]' must be an object, not null");
}

}  // namespace
}  // namespace andweorc::profile
