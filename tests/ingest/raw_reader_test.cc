// Tests for the raw record reader: valid files, truncation, bad headers.
#include "ingest/raw_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "raw_file_builder.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;
using testing_raw::RawFile;

std::string sample_body(uint32_t tid, std::initializer_list<uint64_t> frames) {
  raw::SampleHeader sh{};
  sh.tid = tid;
  sh.nframes = uint16_t(frames.size());
  sh.weight = 2;
  std::string body(reinterpret_cast<char*>(&sh), sizeof sh);
  for (uint64_t f : frames) body.append(reinterpret_cast<char*>(&f), sizeof f);
  return body;
}

RawFile typical_file() {
  RawFile f;
  f.process(42, "/bin/prog");
  std::string maps = "00400000-00401000 r-xp 00000000 00:00 0 /bin/prog\n";
  f.record(raw::kMaps, maps.data(), maps.size());
  std::string samples =
      sample_body(7, {0x401000, 0x401234}) + sample_body(8, {0x400500});
  f.record(raw::kSamples, samples.data(), samples.size());
  f.record(raw::kNote, "hello", 5);
  f.record(999, "future", 6);  // unknown record types are skipped
  std::string points(sizeof(raw::PointsHeader), '\0');
  raw::PointsHeader ph{1, 0};
  std::memcpy(points.data(), &ph, sizeof ph);
  raw::PointEntry e{1, 4, 123};
  points.append(reinterpret_cast<char*>(&e), sizeof e);
  points.append("done\0\0\0\0", 8);
  f.record(raw::kPoints, points.data(), points.size());
  return f;
}

TEST(RawReader, ReadsEveryRecordKind) {
  RawFile f = typical_file();
  raw::EndRecord end{99};
  f.record(raw::kEnd, &end, sizeof end);
  std::string path = f.write();
  RawProcess p;
  std::string error;
  ASSERT_TRUE(read_raw_file(path, &p, &error)) << error;
  unlink(path.c_str());
  EXPECT_EQ(p.pid, 42);
  EXPECT_EQ(p.executable, "/bin/prog");
  EXPECT_EQ(p.sampler, uint32_t(raw::kSamplerPerf));
  ASSERT_EQ(p.samples.size(), 2u);
  EXPECT_EQ(p.samples[0].tid, 7u);
  EXPECT_EQ(p.samples[0].weight, 2u);
  EXPECT_EQ(p.samples[0].frames, (std::vector<uint64_t>{0x401000, 0x401234}));
  ASSERT_EQ(p.points.size(), 1u);
  EXPECT_EQ(p.points[0].name, "done");
  EXPECT_EQ(p.points[0].value, 123u);
  EXPECT_EQ(p.notes, std::vector<std::string>{"hello"});
  EXPECT_TRUE(p.clean_exit);
  EXPECT_FALSE(p.truncated);
}

TEST(RawReader, ReadsTheProfilersCpuTime) {
  RawFile f = typical_file();
  RawProcess before;
  std::string error;
  ASSERT_TRUE(parse_raw_bytes(f.bytes(), "old", &before, &error)) << error;
  EXPECT_FALSE(before.has_cost);  // a runtime that did not write one
  raw::CostRecord cost{};
  cost.process_cpu_ns = 2000000000;
  cost.runtime_cpu_ns = 15000000;
  f.record(raw::kCost, &cost, sizeof cost);
  RawProcess p;
  ASSERT_TRUE(parse_raw_bytes(f.bytes(), "new", &p, &error)) << error;
  EXPECT_TRUE(p.has_cost);
  EXPECT_EQ(p.process_cpu_ns, 2000000000u);
  EXPECT_EQ(p.runtime_cpu_ns, 15000000u);
}

TEST(RawReader, BytesInMemoryParseLikeTheFile) {
  // The Runner reads its own process's records from memory.
  RawFile f = typical_file();
  RawProcess p;
  std::string error;
  ASSERT_TRUE(parse_raw_bytes(f.bytes(), "mine", &p, &error)) << error;
  EXPECT_EQ(p.path, "mine");
  EXPECT_EQ(p.pid, 42);
  EXPECT_EQ(p.samples.size(), 2u);
  EXPECT_FALSE(p.clean_exit);  // no end record yet: the process is alive
  EXPECT_FALSE(parse_raw_bytes("junk", "mine", &p, &error));
  EXPECT_NE(error.find("mine is not an andweorc raw data file"),
            std::string::npos);
}

TEST(RawReader, TruncatedFileKeepsEverythingBeforeTheCut) {
  RawFile f = typical_file();
  size_t full = f.size();
  for (size_t cut = sizeof(raw::FileHeader); cut < full; cut += 7) {
    std::string path = f.write(cut);
    RawProcess p;
    std::string error;
    EXPECT_TRUE(read_raw_file(path, &p, &error)) << "cut at " << cut;
    unlink(path.c_str());
    EXPECT_FALSE(p.clean_exit);
    EXPECT_LE(p.samples.size(), 2u);
  }
}

TEST(RawReader, RejectsWrongMagicAndMissingFiles) {
  std::string path = "/tmp/andweorc-raw-test-bad";
  std::ofstream(path) << "definitely not raw data";
  RawProcess p;
  std::string error;
  EXPECT_FALSE(read_raw_file(path, &p, &error));
  EXPECT_NE(error.find("not an andweorc raw data file"), std::string::npos);
  unlink(path.c_str());
  EXPECT_FALSE(read_raw_file("/nonexistent/x.awr", &p, &error));
  EXPECT_NE(error.find("cannot read"), std::string::npos);
}

}  // namespace
}  // namespace andweorc::ingest
