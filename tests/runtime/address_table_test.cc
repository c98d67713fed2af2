// Tests for the handler's address -> line table and selection matching.
#include "runtime/address_table.h"

#include <gtest/gtest.h>

namespace andweorc::runtime {
namespace {

class AddressTableTest : public ::testing::Test {
 protected:
  // lines 0, 1 in function 7; line 2 in function 9
  AddressRange ranges[3] = {
      {0x1000, 0x1010, 0, 7}, {0x1010, 0x1020, 1, 7}, {0x2000, 0x2100, 2, 9}};
  uint64_t line_samples[3] = {};
  uint64_t function_samples[10] = {};
  AddressTable t{ranges, 3, line_samples, 3, function_samples, 10};
  void TearDown() override { clear_selection(); }
};

// Ranges are returned by index; here index i holds line i.
TEST_F(AddressTableTest, LookupFindsTheRangeOrNothing) {
  EXPECT_EQ(table_lookup(t, 0x1000), 0);
  EXPECT_EQ(table_lookup(t, 0x100f), 0);
  EXPECT_EQ(table_lookup(t, 0x1010), 1);
  EXPECT_EQ(table_lookup(t, 0x20ff), 2);
  EXPECT_EQ(table_lookup(t, 0x0fff), -1);
  EXPECT_EQ(table_lookup(t, 0x1020), -1);
  EXPECT_EQ(table_lookup(t, 0x2100), -1);
}

TEST_F(AddressTableTest, FirstInScopeFrameWinsAndCallersUseAddressMinusOne) {
  // Leaf out of scope, caller's return address just past line 1's range.
  uint64_t frames[] = {0x9000, 0x1020, 0x2050};
  EXPECT_EQ(attribute_frames(t, frames, 3), 1);
  uint64_t leaf_in_scope[] = {0x2000, 0x1005};
  EXPECT_EQ(attribute_frames(t, leaf_in_scope, 2), 2);
  uint64_t none[] = {0x9000, 0x9100};
  EXPECT_EQ(attribute_frames(t, none, 2), -1);
}

TEST_F(AddressTableTest, SelectionByLineOrFunction) {
  EXPECT_FALSE(selection_matches(t, 0));
  set_selection(1, Granularity::kLine);
  EXPECT_TRUE(selection_matches(t, 1));
  EXPECT_FALSE(selection_matches(t, 0));
  set_selection(7, Granularity::kFunction);
  EXPECT_TRUE(selection_matches(t, 0));
  EXPECT_TRUE(selection_matches(t, 1));
  EXPECT_FALSE(selection_matches(t, 2));
  EXPECT_FALSE(selection_matches(t, -1));
  clear_selection();
  EXPECT_FALSE(selection_matches(t, 1));
}

}  // namespace
}  // namespace andweorc::runtime
