// maps_history_test.cc: samples are read with the maps snapshot current at
// their time (issue 12 item 9). A library unloaded and another loaded at the
// same address: with only the last snapshot, the first library's samples
// were attributed to the second.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "ingest/profile_builder.h"
#include "ingest/raw_reader.h"
#include "raw_file_builder.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;
using testing_raw::RawFile;

void maps(RawFile& f, uint64_t time_ns, const std::string& text) {
  if (time_ns != 0) {
    raw::MapsTimeRecord mt{time_ns};
    f.record(raw::kMapsTime, &mt, sizeof mt);
  }
  f.record(raw::kMaps, text.data(), text.size());
}

void sample(RawFile& f, uint64_t time_ns, uint64_t ip) {
  raw::SampleHeader sh{};
  sh.tid = 7;
  sh.nframes = 1;
  sh.time_ns = time_ns;
  sh.weight = 1;
  std::string body(reinterpret_cast<char*>(&sh), sizeof sh);
  body.append(reinterpret_cast<char*>(&ip), sizeof ip);
  f.record(raw::kSamples, body.data(), body.size());
}

// Both libraries at the same place, as the loader puts a library of the
// same size into the hole the first one left. (Not real files: the module
// of a frame is its mapping's path, read or not.)
const std::string kMain = "00400000-00401000 r-xp 00000000 00:00 0 /bin/prog\n";
const std::string kLibA =
    "7f0000000000-7f0000010000 r-xp 00000000 00:00 0 /nonexistent/liba.so\n";
const std::string kLibB =
    "7f0000000000-7f0000010000 r-xp 00000000 00:00 0 /nonexistent/libb.so\n";
const std::string kLibC =
    "7f1000000000-7f1000010000 r-xp 00000000 00:00 0 /nonexistent/libc.so\n";
constexpr uint64_t kInLib = 0x7f0000000100;
constexpr uint64_t kInC = 0x7f1000000100;

// Samples per module.
std::map<std::string, uint64_t> modules_of(const RawFile& f) {
  RawProcess p;
  std::string error;
  EXPECT_TRUE(parse_raw_bytes(f.bytes(), "test", &p, &error)) << error;
  symbols::Symbolizer symbolizer;
  profile::Profile profile;
  build_profile({p}, BuildOptions{}, symbolizer, &profile);
  std::map<std::string, uint64_t> out;
  for (const auto& stack : profile.stacks)
    out[profile.frames[stack.frames.at(0)].module] += stack.samples;
  return out;
}

TEST(MapsHistory, ALibraryUnloadedAndReplacedAtTheSameAddress) {
  RawFile f;
  f.process(42, "/bin/prog");
  maps(f, 10, kMain);  // start-up
  sample(f, 20, 0x400100);
  maps(f, 30, kMain + kLibA);  // the collector saw A loaded
  sample(f, 40, kInLib);       // in A
  sample(f, 50, kInLib);
  maps(f, 60, kMain + kLibA);  // before dlclose(A)
  sample(f, 70, kInLib);       // in B, loaded after
  sample(f, 80, kInLib);
  sample(f, 85, kInLib);
  maps(f, 90, kMain + kLibB);  // the collector saw B
  sample(f, 95, kInLib);       // in B, after the last snapshot (killed)
  auto m = modules_of(f);
  EXPECT_EQ(m["/nonexistent/liba.so"], 2u);
  EXPECT_EQ(m["/nonexistent/libb.so"], 4u);
  EXPECT_EQ(m["/bin/prog"], 1u);
}

TEST(MapsHistory, RepeatedSnapshotsAreKeptOnceWithTheLaterTime) {
  RawFile f;
  f.process(42, "/bin/prog");
  maps(f, 10, kMain + kLibA);
  maps(f, 30, kMain + kLibA);
  maps(f, 50, kMain + kLibB);
  maps(f, 70, kMain + kLibB);
  RawProcess p;
  std::string error;
  ASSERT_TRUE(parse_raw_bytes(f.bytes(), "test", &p, &error)) << error;
  ASSERT_EQ(p.maps_history.size(), 2u);
  EXPECT_EQ(p.maps_history[0].time_ns, 30u);
  EXPECT_EQ(p.maps_history[1].time_ns, 70u);
  EXPECT_EQ(p.maps, kMain + kLibB);  // the last one, as before
}

// A library sampled while dlclose ran its destructors, after the snapshot
// dlclose wrote, and gone from the next one: the earlier snapshot names it.
TEST(MapsHistory, ASampleAfterTheLastSnapshotThatHadItsLibrary) {
  RawFile f;
  f.process(42, "/bin/prog");
  maps(f, 10, kMain + kLibC);
  sample(f, 20, kInC);  // in C's destructor, after the snapshot
  maps(f, 30, kMain);
  auto m = modules_of(f);
  EXPECT_EQ(m["/nonexistent/libc.so"], 1u);
}

// Files from a runtime that wrote no times: the last snapshot, as before.
TEST(MapsHistory, WithoutTimesTheLastSnapshotIsUsed) {
  RawFile f;
  f.process(42, "/bin/prog");
  maps(f, 0, kMain + kLibA);
  sample(f, 40, kInLib);
  maps(f, 0, kMain + kLibB);
  auto m = modules_of(f);
  EXPECT_EQ(m["/nonexistent/libb.so"], 1u);
  EXPECT_EQ(m.count("/nonexistent/liba.so"), 0u);
}

}  // namespace
}  // namespace andweorc::ingest
