// coz_reader_test.cc: importing Coz's profile.coz (hand-written samples in
// Coz's real format) and rejecting damaged input.
#include "profile/coz_reader.h"

#include <gtest/gtest.h>

#include "profile/profile_json.h"

namespace andweorc::profile {
namespace {

// As Coz 0.2 writes it: tab-separated, a startup record, experiments each
// followed by their points, runtime, per-line samples, shutdown.
const char* kCozText =
    "startup\ttime=1700000000000000000\n"
    "experiment\tselected=src/server.c:88\tspeedup=0.40\tduration=500000000"
    "\tselected-samples=120\n"
    "throughput-point\tname=requests\tdelta=2500\n"
    "latency-point\tname=query\tarrivals=400\tdepartures=398\tdifference=7\n"
    "experiment\tselected=src/server.c:88\tspeedup=0.00\tduration=250000000"
    "\tselected-samples=118\n"
    "throughput-point\tname=requests\tdelta=2000\n"
    "runtime\ttime=1000000000\n"
    "samples\tlocation=src/server.c:88\tcount=812\n"
    "samples\tlocation=src/io.c:12\tcount=40\n"
    "samples\tlocation=src/server.c:88\tcount=8\n"
    "shutdown\ttime=1700000001000000000\tsamples=860\n";

TEST(CozReader, ImportsExperimentsPointsAndSamples) {
  ReadResult r = parse_coz(kCozText, "profile.coz");
  ASSERT_TRUE(r.ok()) << r.error;
  const Profile& p = *r.profile;
  EXPECT_EQ(p.run.start_time, "2023-11-14T22:13:20Z");
  EXPECT_DOUBLE_EQ(p.run.duration_s, 1.0);
  EXPECT_EQ(p.run.sampler, "coz");
  EXPECT_TRUE(p.settings.enabled);
  ASSERT_EQ(p.experiments.size(), 2u);
  const Experiment& e = p.experiments[0];
  EXPECT_EQ(e.file, "src/server.c");
  EXPECT_EQ(e.line, 88);
  EXPECT_EQ(e.function, "");
  EXPECT_EQ(e.speedup_pct, 40);
  EXPECT_DOUBLE_EQ(e.duration_s, 0.5);
  EXPECT_DOUBLE_EQ(e.delay_s, 0);
  EXPECT_EQ(e.selected_samples, 120u);
  ASSERT_EQ(e.points.size(), 2u);
  EXPECT_EQ(e.points[0],
            (PointDelta{"requests", PointKind::kThroughput, 2500, 0, 0, 0, 0}));
  EXPECT_EQ(e.points[1],
            (PointDelta{"query", PointKind::kLatency, 0, 400, 398, 7, 7}));
  EXPECT_EQ(p.experiments[1].speedup_pct, 0);
  // Totals per point from the experiments; samples by line, summed.
  ASSERT_EQ(p.points.size(), 2u);
  EXPECT_EQ(p.points[0].name, "query");
  EXPECT_EQ(p.points[0].begins, 400u);
  EXPECT_EQ(p.points[1].visits, 4500u);
  EXPECT_EQ(p.samples, 860u);
  ASSERT_EQ(p.frames.size(), 2u);
  EXPECT_EQ(p.frames[0].file, "src/io.c");
  EXPECT_TRUE(p.frames[0].in_scope);
  EXPECT_EQ(p.stacks[1].samples, 820u);
  // What was imported is a valid profile.
  ReadResult again = parse_profile(dump_profile(p), "again");
  ASSERT_TRUE(again.ok()) << again.error;
  EXPECT_EQ(*again.profile, p);
}

TEST(CozReader, AcceptsJsonLinesCrlfAndOldProgressPoints) {
  ReadResult r = parse_coz(
      "{\"type\":\"experiment\",\"selected\":\"a.c:3\",\"speedup\":0.5,"
      "\"duration\":100000000}\r\n"
      "progress-point\tname=a.c:9\ttype=source\tdelta=10\r\n"
      "\n",
      "x");
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.profile->experiments.size(), 1u);
  EXPECT_EQ(r.profile->experiments[0].speedup_pct, 50);
  EXPECT_EQ(r.profile->experiments[0].points[0].visits, 10u);
  EXPECT_EQ(r.profile->experiments[0].points[0].name, "a.c:9");
}

TEST(CozReader, ACompleteLastRecordWithoutNewlineIsKept) {
  // A cut that happens to fall at a record's end cannot be told from a
  // file without a final newline; every field is there, so it is data.
  ReadResult r =
      parse_coz("experiment\tselected=a.c:1\tspeedup=0.5\tduration=12", "x");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_DOUBLE_EQ(r.profile->experiments[0].duration_s, 12e-9);
}

TEST(CozReader, SelectedFileMayContainColons) {
  ReadResult r = parse_coz(
      "experiment\tselected=C:/x:y.c:7\tspeedup=0\tduration=1\n", "x");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->experiments[0].file, "C:/x:y.c");
  EXPECT_EQ(r.profile->experiments[0].line, 7);
}

std::string error_of(const std::string& text) {
  ReadResult r = parse_coz(text, "p.coz");
  EXPECT_FALSE(r.ok());
  return r.error;
}

TEST(CozReader, RejectsDamagedInputWithOneLine) {
  EXPECT_EQ(error_of(""), "p.coz: no Coz profile records");
  EXPECT_EQ(error_of("\n\n"), "p.coz: no Coz profile records");
  EXPECT_EQ(error_of("hello world\n"),
            "p.coz: line 1: unknown record type 'hello world'");
  EXPECT_EQ(error_of("throughput-point\tname=a\tdelta=1\n"),
            "p.coz: line 1: throughput-point record before any experiment");
  EXPECT_EQ(error_of("startup\ttime=1\nexperiment\tselected=a.c:1\tspeedup=0."),
            "p.coz: line 2: experiment record without 'duration' (the file "
            "looks truncated)");
  EXPECT_EQ(error_of("experiment\tselected=a.c\tspeedup=0\tduration=1\n"),
            "p.coz: line 1: 'selected' must be FILE:LINE, not 'a.c'");
  EXPECT_EQ(error_of("experiment\tselected=a.c:1\tspeedup=1.5\tduration=1\n"),
            "p.coz: line 1: 'speedup' must be a number 0..1, not '1.5'");
  EXPECT_EQ(error_of("experiment\tselected=a.c:1\tspeedup=nan\tduration=1\n"),
            "p.coz: line 1: 'speedup' must be a number 0..1, not 'nan'");
  EXPECT_EQ(error_of("samples\tlocation=a.c:1\tcount=-3\n"),
            "p.coz: line 1: 'count' must be a non-negative integer, not '-3'");
  EXPECT_EQ(error_of("samples\tlocation=a.c:1\tcount=99999999999999999999\n"),
            "p.coz: line 1: 'count' must be a non-negative integer, not "
            "'99999999999999999999'");
  EXPECT_EQ(error_of("samples\tlocation=a.c:1\tcount=18446744073709551615\n"
                     "samples\tlocation=a.c:2\tcount=1\n"),
            "p.coz: line 2: sample counts overflow");
  EXPECT_EQ(error_of("runtime\ttime\n"),
            "p.coz: line 1: field 'time' is not key=value");
  EXPECT_EQ(error_of("{\"type\": 3\n"), "p.coz: line 1: not a JSON object");
  EXPECT_EQ(error_of(std::string("runtime\ttime=1\0x\n", 17)),
            "p.coz: line 1: contains a NUL byte (not a text file?)");
}

}  // namespace
}  // namespace andweorc::profile
