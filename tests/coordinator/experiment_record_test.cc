// experiment_record_test.cc: the coordinator's experiment record, read back
// by the tool's decoder (ingest/raw_reader.h): the two sides of one format.
#include "coordinator/experiment_record.h"

#include <gtest/gtest.h>

#include "ingest/raw_reader.h"

namespace andweorc::coordinator {
namespace {

ExperimentFacts facts() {
  ExperimentFacts f;
  f.start_ns = 1000;
  f.duration_ns = 250000000;
  f.delay_ns = 12345;
  f.selected_samples = 77;
  f.speedup_pct = 50;
  f.by_function = true;
  f.file = "src/odd_length.cc";  // 17 bytes: padded to 24
  f.line = 42;
  f.function = "ns::f(int)";
  return f;
}

ingest::RawExperiment decode(const std::string& body) {
  ingest::RawExperiment e;
  EXPECT_TRUE(ingest::decode_experiment(body, 0, body.size(), &e));
  return e;
}

TEST(ExperimentRecord, HeaderFileAndFunctionRoundTrip) {
  ingest::RawExperiment e = decode(encode_experiment(facts(), {}, {}, false));
  EXPECT_EQ(e.start_ns, 1000u);
  EXPECT_EQ(e.duration_ns, 250000000u);
  EXPECT_EQ(e.delay_ns, 12345u);
  EXPECT_EQ(e.selected_samples, 77u);
  EXPECT_EQ(e.speedup_pct, 50);
  EXPECT_TRUE(e.function_granularity);
  EXPECT_EQ(e.file, "src/odd_length.cc");
  EXPECT_EQ(e.line, 42);
  EXPECT_EQ(e.function, "ns::f(int)");
  EXPECT_TRUE(e.points.empty());
}

TEST(ExperimentRecord, PointsCarryTheirChangeNotTheirTotals) {
  PointSnapshot before{{"rows", {100, 0, 0, false}},
                       {"request", {0, 10, 7, true}}};
  PointSnapshot after{{"rows", {160, 0, 0, false}},
                      {"request", {0, 25, 20, true}},
                      {"late", {5, 0, 0, false}}};  // first seen mid-run
  ingest::RawExperiment e =
      decode(encode_experiment(facts(), before, after, false));
  ASSERT_EQ(e.points.size(), 3u);
  std::map<std::string, ingest::RawExperimentPoint> by_name;
  for (const auto& p : e.points) by_name[p.name] = p;
  EXPECT_FALSE(by_name["rows"].latency);
  EXPECT_EQ(by_name["rows"].delta, 60u);
  EXPECT_EQ(by_name["late"].delta, 5u);
  const auto& r = by_name["request"];
  EXPECT_TRUE(r.latency);
  EXPECT_EQ(r.delta, 15u);       // arrivals
  EXPECT_EQ(r.departures, 13u);  // departures
  EXPECT_EQ(r.in_flight_start, 3);
  EXPECT_EQ(r.in_flight_end, 5);
}

TEST(ExperimentRecord, EndToEndRunAddsOneVisitOfItsPoint) {
  ingest::RawExperiment e = decode(encode_experiment(facts(), {}, {}, true));
  ASSERT_EQ(e.points.size(), 1u);
  EXPECT_EQ(e.points[0].name, kEndToEndPoint);
  EXPECT_FALSE(e.points[0].latency);
  EXPECT_EQ(e.points[0].delta, 1u);
}

TEST(ExperimentRecord, ACutRecordIsNotDecoded) {
  std::string body = encode_experiment(facts(), {}, {{"rows", {1}}}, false);
  ingest::RawExperiment e;
  // The last 8 bytes are the point's name "rows" and its padding: a cut
  // into the padding alone loses nothing, a cut into the name does.
  for (size_t cut : {size_t(0), size_t(8), body.size() / 2, body.size() - 5})
    EXPECT_FALSE(ingest::decode_experiment(body, 0, cut, &e)) << cut;
}

TEST(ExperimentRecord, ParentsRoundTripAfterThePoints) {
  ExperimentFacts f = facts();
  f.by_function = false;
  f.parents = {{"ns::outer()", "src/a.cc"}, {"g", "src/odd_length.cc"}};
  std::string body = encode_experiment(f, {}, {{"rows", {3}}}, false);
  ingest::RawExperiment e = decode(body);
  ASSERT_EQ(e.points.size(), 1u);
  EXPECT_EQ(e.points[0].delta, 3u);
  ASSERT_EQ(e.parents.size(), 2u);
  EXPECT_EQ(e.parents[0].function, "ns::outer()");
  EXPECT_EQ(e.parents[0].file, "src/a.cc");
  EXPECT_EQ(e.parents[1].function, "g");
  EXPECT_EQ(e.parents[1].file, "src/odd_length.cc");
  // Without parents the record ends after the points, as before 1.7.
  EXPECT_TRUE(
      decode(encode_experiment(facts(), {}, {}, false)).parents.empty());
  // A record cut inside a parent is torn, not a measurement.
  ingest::RawExperiment torn;
  EXPECT_FALSE(ingest::decode_experiment(body, 0, body.size() - 12, &torn));
}

}  // namespace
}  // namespace andweorc::coordinator
