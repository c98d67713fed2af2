// Tests for label bindings: the raw record round trip and resolving a
// trampoline address at a sample's time through the binding history.
#include "ingest/label_resolver.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "ingest/raw_reader.h"
#include "raw_file_builder.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;

RawLabelBinding binding(uint64_t time, uint64_t start, uint64_t end,
                        std::string key, std::string value) {
  RawLabelBinding b;
  b.time_ns = time;
  b.start = start;
  b.end = end;
  b.table_start = 0x1000;
  b.table_end = 0x2000;
  b.key = std::move(key);
  b.value = std::move(value);
  return b;
}

TEST(LabelResolver, ResolvesByTheLastBindingAtOrBeforeTheSample) {
  // Trampoline [0x1010, 0x1020) is bound to A, released, then bound to B;
  // the records may arrive out of time order.
  std::vector<RawLabelBinding> bindings = {
      binding(200, 0x1010, 0x1020, "q", "B"),
      binding(100, 0x1010, 0x1020, "q", "A"),
      binding(150, 0x1020, 0x1030, "tenant", "t1"),
  };
  LabelResolver r(bindings);
  EXPECT_EQ(r.label_at(0x1015, 50), nullptr);  // before any binding
  ASSERT_NE(r.label_at(0x1015, 100), nullptr);
  EXPECT_EQ(r.label_at(0x1015, 100)->value, "A");
  EXPECT_EQ(r.label_at(0x1010, 199)->value, "A");
  EXPECT_EQ(r.label_at(0x101f, 200)->value, "B");
  EXPECT_EQ(r.label_at(0x1015, 1000)->value, "B");
  EXPECT_EQ(r.label_at(0x1025, 1000)->key, "tenant");
  EXPECT_EQ(r.label_at(0x1030, 1000), nullptr);  // past the last trampoline
  EXPECT_EQ(r.label_at(0x0fff, 1000), nullptr);
}

TEST(LabelResolver, TheWholeTableIsMachinery) {
  std::vector<RawLabelBinding> bindings = {
      binding(1, 0x1010, 0x1020, "k", "v")};
  LabelResolver r(bindings);
  EXPECT_TRUE(r.is_machinery(0x1000));  // e.g. the shared helper
  EXPECT_TRUE(r.is_machinery(0x1fff));
  EXPECT_FALSE(r.is_machinery(0x2000));
  EXPECT_FALSE(r.is_machinery(0x0fff));
  EXPECT_EQ(r.label_at(0x1000, 5), nullptr);  // machinery, not a trampoline
}

TEST(LabelResolver, NoBindingsNoLabels) {
  LabelResolver r({});
  EXPECT_FALSE(r.is_machinery(0x1000));
  EXPECT_EQ(r.label_at(0x1000, 5), nullptr);
}

// The runtime writes the record, the reader gives back the same binding.
TEST(LabelBindingRecord, RoundTripsThroughTheRawReader) {
  testing_raw::RawFile f;
  f.label_binding(123, 0x5010, 0x5020, 0x5000, 0x9000, 7, "endpoint",
                  "search-v2");  // 8 and 9 bytes
  std::string path = f.write();
  RawProcess p;
  std::string error;
  ASSERT_TRUE(read_raw_file(path, &p, &error)) << error;
  unlink(path.c_str());
  ASSERT_EQ(p.label_bindings.size(), 1u);
  const RawLabelBinding& b = p.label_bindings[0];
  EXPECT_EQ(b.time_ns, 123u);
  EXPECT_EQ(b.start, 0x5010u);
  EXPECT_EQ(b.end, 0x5020u);
  EXPECT_EQ(b.table_start, 0x5000u);
  EXPECT_EQ(b.table_end, 0x9000u);
  EXPECT_EQ(b.trampoline, 7u);
  EXPECT_EQ(b.key, "endpoint");
  EXPECT_EQ(b.value, "search-v2");
  EXPECT_FALSE(p.truncated);
}

}  // namespace
}  // namespace andweorc::ingest
