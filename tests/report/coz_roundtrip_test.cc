// coz_roundtrip_test.cc: what coz_writer writes, coz_reader reads back.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "causal_fixtures.h"
#include "profile/attribution.h"
#include "profile/coz_reader.h"
#include "report/coz_writer.h"

namespace andweorc::report {
namespace {

TEST(CozRoundTrip, ExperimentsPointsAndSamplesSurvive) {
  profile::Profile p = testing::causal_profile();
  std::ostringstream out;
  write_coz(p, out);
  profile::ReadResult r = profile::parse_coz(out.str(), "rt.coz");
  ASSERT_TRUE(r.ok()) << r.error;
  const profile::Profile& q = *r.profile;
  EXPECT_EQ(q.run.start_time, p.run.start_time);
  EXPECT_NEAR(q.run.duration_s, p.run.duration_s, 1e-9);
  ASSERT_EQ(q.experiments.size(), p.experiments.size());
  for (size_t i = 0; i < p.experiments.size(); ++i) {
    const profile::Experiment& a = p.experiments[i];
    const profile::Experiment& b = q.experiments[i];
    EXPECT_EQ(b.file, a.file);
    EXPECT_EQ(b.line, a.line);
    EXPECT_EQ(b.speedup_pct, a.speedup_pct);
    // Coz keeps the virtual duration, in whole nanoseconds.
    EXPECT_NEAR(b.virtual_duration_s(), a.virtual_duration_s(), 1e-9);
    EXPECT_EQ(b.selected_samples, a.selected_samples);
    ASSERT_EQ(b.points.size(), a.points.size());
    for (size_t k = 0; k < a.points.size(); ++k) {
      EXPECT_EQ(b.points[k].name, a.points[k].name);
      EXPECT_EQ(b.points[k].kind, a.points[k].kind);
      EXPECT_EQ(b.points[k].visits, a.points[k].visits);
      EXPECT_EQ(b.points[k].arrivals, a.points[k].arrivals);
      EXPECT_EQ(b.points[k].departures, a.points[k].departures);
      EXPECT_EQ(b.points[k].in_flight_end, a.points[k].in_flight_end);
    }
  }
  // Samples per line, as attributed.
  auto lines = [](const profile::Profile& x) {
    std::map<std::pair<std::string, int>, uint64_t> m;
    for (const auto& l : profile::attribute(x).lines) {
      if (l.line > 0) m[{l.file, l.line}] += l.samples;
    }
    return m;
  };
  EXPECT_EQ(lines(q), lines(p));
  // And the writer writes the import back the same way.
  std::ostringstream again;
  write_coz(q, again);
  EXPECT_EQ(again.str(), out.str());
}

}  // namespace
}  // namespace andweorc::report
