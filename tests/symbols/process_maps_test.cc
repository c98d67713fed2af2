// process_maps_test.cc: /proc/<pid>/maps text parsing and address lookup.
#include <gtest/gtest.h>

#include "symbols/symbolizer.h"

namespace andweorc::symbols {
namespace {

constexpr const char* kMaps =
    "7f0000002000-7f0000003000 r-xp 00002000 08:01 1234   "
    "   /usr/lib/libc.so.6\n"
    "555555554000-555555556000 r--p 00000000 08:01 42      /tmp/my dir/a "
    "b.bin\n"
    "555555556000-555555558000 r-xp 00001000 08:01 42      /tmp/my dir/a "
    "b.bin\n"
    "555555558000-555555559000 rw-p 00000000 00:00 0 \n"
    "7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0      [vdso]\n"
    "600000000000-600000001000 r-xp 00003000 08:01 77     "
    "/opt/gone/lib x.so (deleted)\n"
    "this is not a maps line\n"
    "zzzz-1000 r-xp 00000000 00:00 0\n"
    "\n";

TEST(ProcessMaps, ParsesAndSortsAllFields) {
  ProcessMaps maps = ProcessMaps::parse(kMaps);
  const auto& m = maps.mappings();
  ASSERT_EQ(m.size(), 6u);
  for (size_t i = 1; i < m.size(); ++i) EXPECT_LT(m[i - 1].start, m[i].start);

  EXPECT_EQ(m[0].start, 0x555555554000u);
  EXPECT_EQ(m[0].end, 0x555555556000u);
  EXPECT_EQ(m[0].offset, 0u);
  EXPECT_FALSE(m[0].executable);
  EXPECT_EQ(m[0].path, "/tmp/my dir/a b.bin");
  EXPECT_FALSE(m[0].deleted);

  EXPECT_TRUE(m[1].executable);
  EXPECT_EQ(m[1].offset, 0x1000u);
  EXPECT_EQ(m[1].path, "/tmp/my dir/a b.bin");

  EXPECT_EQ(m[2].path, "");  // anonymous
  EXPECT_FALSE(m[2].executable);

  EXPECT_EQ(m[3].path, "/opt/gone/lib x.so");
  EXPECT_TRUE(m[3].deleted);
  EXPECT_EQ(m[3].offset, 0x3000u);

  EXPECT_EQ(m[4].path, "/usr/lib/libc.so.6");
  EXPECT_EQ(m[4].offset, 0x2000u);
  EXPECT_EQ(m[5].path, "[vdso]");
}

TEST(ProcessMaps, FindUsesHalfOpenRanges) {
  ProcessMaps maps = ProcessMaps::parse(kMaps);
  EXPECT_EQ(maps.find(0x555555553fffu), nullptr);
  ASSERT_NE(maps.find(0x555555554000u), nullptr);
  EXPECT_EQ(maps.find(0x555555554000u)->offset, 0u);
  // The end of one mapping is the start of the next.
  ASSERT_NE(maps.find(0x555555556000u), nullptr);
  EXPECT_EQ(maps.find(0x555555556000u)->offset, 0x1000u);
  ASSERT_NE(maps.find(0x555555558fffu), nullptr);
  EXPECT_EQ(maps.find(0x555555559000u), nullptr);
  EXPECT_EQ(maps.find(0), nullptr);
  EXPECT_EQ(maps.find(~uint64_t{0}), nullptr);
  ASSERT_NE(maps.find(0x7ffff7fc1234u), nullptr);
  EXPECT_EQ(maps.find(0x7ffff7fc1234u)->path, "[vdso]");
}

TEST(ProcessMaps, EmptyAndGarbageInput) {
  EXPECT_TRUE(ProcessMaps::parse("").mappings().empty());
  EXPECT_TRUE(ProcessMaps::parse("\n\n  \n").mappings().empty());
  EXPECT_TRUE(ProcessMaps::parse("1000-0fff r-xp 0 0:0 0 /x\n")
                  .mappings()
                  .empty());  // end before start
  EXPECT_TRUE(ProcessMaps::parse("1000-2000 r-xp\n").mappings().empty());
  // No trailing newline and CRLF endings still parse.
  EXPECT_EQ(ProcessMaps::parse("1000-2000 r-xp 0 0:0 0 /x").mappings().size(),
            1u);
  auto crlf = ProcessMaps::parse("1000-2000 r-xp 0 0:0 0 /x\r\n");
  ASSERT_EQ(crlf.mappings().size(), 1u);
  EXPECT_EQ(crlf.mappings()[0].path, "/x");
}

TEST(ProcessMaps, ParsesOwnLiveMaps) {
  std::string text;
  if (FILE* f = std::fopen("/proc/self/maps", "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  ProcessMaps maps = ProcessMaps::parse(text);
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(maps.mappings().size(), lines);
  const Mapping* self =
      maps.find(reinterpret_cast<uint64_t>(&ProcessMaps::parse));
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->executable);
  EXPECT_NE(self->path.find("symbols_test"), std::string::npos);
}

}  // namespace
}  // namespace andweorc::symbols
