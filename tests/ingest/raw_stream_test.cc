// raw_stream_test.cc: raw files read with their samples left in the file
// and streamed back (raw_reader.h for_each_sample), as `andweorc run`
// reads them so that a long run's samples never all sit in memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ingest/profile_builder.h"
#include "ingest/raw_reader.h"
#include "raw_file_builder.h"
#include "runtime/raw_format.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;
using testing_raw::RawFile;

std::string stream_sample_body(uint32_t tid, uint64_t time_ns,
                               std::vector<uint64_t> frames) {
  raw::SampleHeader sh{};
  sh.tid = tid;
  sh.nframes = uint16_t(frames.size());
  sh.time_ns = time_ns;
  sh.weight = 1;
  std::string body(reinterpret_cast<char*>(&sh), sizeof sh);
  for (uint64_t f : frames) body.append(reinterpret_cast<char*>(&f), sizeof f);
  return body;
}

void stream_experiment(RawFile& f, uint64_t start_ns, uint64_t duration_ns) {
  raw::ExperimentHeader h{};
  h.start_ns = start_ns;
  h.duration_ns = duration_ns;
  h.speedup_pct = 20;
  h.line = 7;
  h.file_len = 4;
  std::string body(reinterpret_cast<char*>(&h), sizeof h);
  body.append("a.cc\0\0\0\0", 8);
  f.record(raw::kExperiment, body.data(), body.size());
}

// A process with samples in several batches around two experiments.
RawFile stream_file() {
  RawFile f;
  f.process(42, "/bin/prog");
  std::string maps = "00400000-00500000 r-xp 00000000 00:00 0 /bin/prog\n";
  f.record(raw::kMaps, maps.data(), maps.size());
  for (uint64_t batch = 0; batch < 5; ++batch) {
    std::string body;
    for (uint64_t i = 0; i < 20; ++i)
      body += stream_sample_body(
          uint32_t(7 + i % 2), (batch * 20 + i) * 1000000,
          {0x400100 + 16 * (i % 3), 0x400800 + 16 * (batch % 2)});
    f.record(raw::kSamples, body.data(), body.size());
    if (batch == 2) stream_experiment(f, 10000000, 30000000);
  }
  stream_experiment(f, 60000000, 50000000);
  return f;
}

std::vector<RawSample> streamed(const RawProcess& p, bool* ok,
                                std::string* error) {
  std::vector<RawSample> out;
  *ok = for_each_sample(
      p, [&](const RawSample& s) { out.push_back(s); }, error);
  return out;
}

void expect_same_samples(const std::vector<RawSample>& a,
                         const std::vector<RawSample>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tid, b[i].tid) << i;
    EXPECT_EQ(a[i].time_ns, b[i].time_ns) << i;
    EXPECT_EQ(a[i].weight, b[i].weight) << i;
    EXPECT_EQ(a[i].frames, b[i].frames) << i;
  }
}

// A temporary raw-data directory with one process's file holding `bytes`,
// as `andweorc run` leaves it; removed with the object.
struct StreamDir {
  char dir[40] = "/tmp/andweorc-stream-test-XXXXXX";
  std::string path;
  explicit StreamDir(const std::string& bytes) {
    if (mkdtemp(dir) == nullptr) return;  // path stays empty: tests fail
    path = std::string(dir) + "/1" + raw::kRawSuffix;
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  ~StreamDir() {
    unlink(path.c_str());
    rmdir(dir);
  }
};

TEST(RawStream, ReadDirLeavesSamplesInTheFileAndStreamsThemBack) {
  StreamDir d(stream_file().bytes());
  ASSERT_FALSE(d.path.empty());
  std::vector<RawProcess> procs;
  std::string error;
  ASSERT_TRUE(read_raw_dir(d.dir, &procs, &error)) << error;
  ASSERT_EQ(procs.size(), 1u);
  const RawProcess& p = procs[0];
  EXPECT_TRUE(p.samples_in_file);
  EXPECT_TRUE(p.samples.empty());  // nothing per sample held
  EXPECT_EQ(p.experiments.size(), 2u);
  EXPECT_FALSE(p.truncated);

  RawProcess loaded;
  ASSERT_TRUE(read_raw_file(d.path, &loaded, &error)) << error;
  EXPECT_EQ(loaded.samples.size(), 100u);
  bool ok = false;
  expect_same_samples(streamed(p, &ok, &error), loaded.samples);
  EXPECT_TRUE(ok) << error;

  // The profile is the same either way (stacks, counts, experiment CPU).
  symbols::Symbolizer sym_a, sym_b;
  profile::Profile a, b;
  build_profile({p}, BuildOptions{}, sym_a, &a);
  build_profile({loaded}, BuildOptions{}, sym_b, &b);
  EXPECT_EQ(a.samples, 100u);
  EXPECT_EQ(a.samples, b.samples);
  ASSERT_EQ(a.processes.size(), 1u);
  EXPECT_EQ(a.processes[0].samples, 100u);
  ASSERT_EQ(a.stacks.size(), b.stacks.size());
  for (size_t i = 0; i < a.stacks.size(); ++i) {
    EXPECT_EQ(a.stacks[i].frames, b.stacks[i].frames);
    EXPECT_EQ(a.stacks[i].samples, b.stacks[i].samples);
  }
  ASSERT_EQ(a.experiments.size(), 2u);
  // [10 ms, 40 ms) holds 30 samples of 1 ms; [60 ms, 110 ms) the last 40.
  EXPECT_NEAR(a.experiments[0].cpu_s, 0.030, 1e-12);
  EXPECT_NEAR(a.experiments[1].cpu_s, 0.040, 1e-12);
  EXPECT_EQ(a.experiments[0].cpu_s, b.experiments[0].cpu_s);
  EXPECT_EQ(a.experiments[1].cpu_s, b.experiments[1].cpu_s);
}

TEST(RawStream, StreamsOnlyWhatWasReadEvenIfTheFileGrew) {
  // A live snapshot reads files that are still written to: the samples of
  // a record appended after the read are not in that profile.
  StreamDir d(stream_file().bytes());
  ASSERT_FALSE(d.path.empty());
  std::vector<RawProcess> procs;
  std::string error;
  ASSERT_TRUE(read_raw_dir(d.dir, &procs, &error)) << error;
  {
    std::string body = stream_sample_body(9, 5, {0x400100});
    raw::RecordHeader h{raw::kSamples, uint32_t(body.size())};
    std::ofstream out(d.path, std::ios::binary | std::ios::app);
    out.write(reinterpret_cast<char*>(&h), sizeof h);
    out << body;
  }
  bool ok = false;
  EXPECT_EQ(streamed(procs[0], &ok, &error).size(), 100u);
  EXPECT_TRUE(ok) << error;
}

TEST(RawStream, AFileGoneBeforeItsSamplesAreReadIsAWarningNotACrash) {
  StreamDir d(stream_file().bytes());
  ASSERT_FALSE(d.path.empty());
  std::vector<RawProcess> procs;
  std::string error;
  ASSERT_TRUE(read_raw_dir(d.dir, &procs, &error)) << error;
  unlink(d.path.c_str());
  rmdir(d.dir);
  bool ok = true;
  EXPECT_TRUE(streamed(procs[0], &ok, &error).empty());
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find(d.path), std::string::npos) << error;
  symbols::Symbolizer symbolizer;
  profile::Profile prof;
  build_profile(procs, BuildOptions{}, symbolizer, &prof);
  EXPECT_EQ(prof.samples, 0u);
  bool warned = false;
  for (const auto& w : prof.warnings)
    warned = warned || w.find(d.path) != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(RawStream, ACutFileStreamsTheSamplesBeforeTheCut) {
  RawFile f = stream_file();
  for (size_t cut : {f.size() - 3, f.size() / 2, size_t(200), size_t(20)}) {
    StreamDir d(f.bytes().substr(0, cut));
    ASSERT_FALSE(d.path.empty());
    std::vector<RawProcess> procs;
    RawProcess loaded;
    std::string error;
    ASSERT_TRUE(read_raw_dir(d.dir, &procs, &error)) << error;
    ASSERT_TRUE(read_raw_file(d.path, &loaded, &error)) << error;
    EXPECT_EQ(procs[0].truncated, loaded.truncated) << "cut at " << cut;
    EXPECT_EQ(procs[0].experiments.size(), loaded.experiments.size());
    bool ok = false;
    expect_same_samples(streamed(procs[0], &ok, &error), loaded.samples);
    EXPECT_TRUE(ok) << error;
  }
}

}  // namespace
}  // namespace andweorc::ingest
