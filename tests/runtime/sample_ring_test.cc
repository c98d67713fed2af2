// Tests for the single-producer/single-consumer sample ring.
#include "runtime/sample_ring.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

namespace andweorc::runtime {
namespace {

TEST(SampleRing, PushPeekConsumeKeepsBytesInOrder) {
  alignas(8) uint8_t mem[64];
  SampleRing ring;
  ring.init(mem, sizeof mem);
  uint32_t a = 0x11223344;
  uint64_t b[2] = {7, 9};
  ASSERT_TRUE(ring.push(&a, sizeof a, b, sizeof b));
  EXPECT_EQ(ring.readable(), sizeof a + sizeof b);
  uint32_t ra;
  uint64_t rb[2];
  ring.peek(0, &ra, sizeof ra);
  ring.peek(sizeof ra, rb, sizeof rb);
  EXPECT_EQ(ra, a);
  EXPECT_EQ(rb[0], 7u);
  EXPECT_EQ(rb[1], 9u);
  ring.consume(sizeof a + sizeof b);
  EXPECT_EQ(ring.readable(), 0u);
}

TEST(SampleRing, WrapsAroundTheEnd) {
  alignas(8) uint8_t mem[32];
  SampleRing ring;
  ring.init(mem, sizeof mem);
  uint8_t chunk[12];
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 12; ++i) chunk[i] = uint8_t(round * 12 + i);
    ASSERT_TRUE(ring.push(chunk, 8, chunk + 8, 4));
    uint8_t out[12];
    ring.peek(0, out, 12);
    EXPECT_EQ(0, std::memcmp(out, chunk, 12)) << "round " << round;
    ring.consume(12);
  }
}

TEST(SampleRing, FullRingDropsAndCounts) {
  alignas(8) uint8_t mem[16];
  SampleRing ring;
  ring.init(mem, sizeof mem);
  uint8_t chunk[10] = {};
  EXPECT_TRUE(ring.push(chunk, 10, nullptr, 0));
  EXPECT_FALSE(ring.push(chunk, 10, nullptr, 0));
  EXPECT_FALSE(ring.push(chunk, 10, nullptr, 0));
  ring.count_dropped(5);
  EXPECT_EQ(ring.take_dropped(), 7u);
  EXPECT_EQ(ring.take_dropped(), 0u);
  EXPECT_EQ(ring.readable(), 10u);
}

TEST(SampleRing, ConcurrentProducerAndConsumerLoseNothing) {
  std::vector<uint8_t> mem(1024);
  SampleRing ring;
  ring.init(mem.data(), mem.size());
  constexpr uint64_t kCount = 50000;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kCount;) {
      if (ring.push(&i, sizeof i, nullptr, 0)) ++i;
    }
  });
  uint64_t expected = 0;
  while (expected < kCount) {
    if (ring.readable() >= sizeof(uint64_t)) {
      uint64_t v;
      ring.peek(0, &v, sizeof v);
      ASSERT_EQ(v, expected);
      ring.consume(sizeof v);
      ++expected;
    }
  }
  producer.join();
}

}  // namespace
}  // namespace andweorc::runtime
