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
}

TEST(Duration, RejectsGarbage) {
  EXPECT_FALSE(parse_duration_ns(""));
  EXPECT_FALSE(parse_duration_ns("ms"));
  EXPECT_FALSE(parse_duration_ns("1 ms"));
  EXPECT_FALSE(parse_duration_ns("1min"));
  EXPECT_FALSE(parse_duration_ns("-1ms"));
}

}  // namespace
}  // namespace andweorc::cli
