// Tests for --sample-period style duration parsing.
#include "cli/duration.h"

#include <gtest/gtest.h>

namespace andweorc::cli {
namespace {

TEST(Duration, UnitsAndPlainNanoseconds) {
  EXPECT_EQ(parse_duration_ns("1ms"), 1000000u);
  EXPECT_EQ(parse_duration_ns("250us"), 250000u);
  EXPECT_EQ(parse_duration_ns("2s"), 2000000000u);
  EXPECT_EQ(parse_duration_ns("1.5ms"), 1500000u);
  EXPECT_EQ(parse_duration_ns("100000"), 100000u);
  EXPECT_EQ(parse_duration_ns("7ns"), 7u);
  // Minutes and hours, as --max-time's help suggests ("2m"): "m" is not
  // "ms".
  EXPECT_EQ(parse_duration_ns("2m"), 120000000000u);
  EXPECT_EQ(parse_duration_ns("10m"), 600000000000u);
  EXPECT_EQ(parse_duration_ns("1.5h"), 5400000000000u);
}

TEST(Duration, RejectsGarbage) {
  EXPECT_FALSE(parse_duration_ns(""));
  EXPECT_FALSE(parse_duration_ns("ms"));
  EXPECT_FALSE(parse_duration_ns("1 ms"));
  EXPECT_FALSE(parse_duration_ns("1min"));
  EXPECT_FALSE(parse_duration_ns("-1ms"));
}

TEST(PeriodMultiple, WholeMultiplesOfTheRunsPeriodOnly) {
  uint32_t m = 0;
  std::string error;
  EXPECT_TRUE(period_multiple("4ms", 1000000, &m, &error)) << error;
  EXPECT_EQ(m, 4u);
  EXPECT_TRUE(period_multiple("1ms", 1000000, &m, &error));
  EXPECT_EQ(m, 1u);
  EXPECT_TRUE(period_multiple("1ms", 250000, &m, &error));
  EXPECT_EQ(m, 4u);
  for (const char* bad : {"1.5ms", "500us", "65ms", "0", "soon"}) {
    error.clear();
    EXPECT_FALSE(period_multiple(bad, 1000000, &m, &error)) << bad;
    EXPECT_NE(error.find("times 1 to 64: 1ms, 2ms, 4ms ... 64ms"),
              std::string::npos)
        << error;
  }
}

}  // namespace
}  // namespace andweorc::cli
