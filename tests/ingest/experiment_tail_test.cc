// Tests for following a running program's experiments: records are read
// once each, records still being written wait, new files are picked up.
#include "ingest/experiment_tail.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "ingest/label_resolver.h"
#include "raw_file_builder.h"

namespace andweorc::ingest {
namespace {

namespace raw = andweorc::raw;
namespace fs = std::filesystem;
using testing_raw::RawFile;

std::string pad8(std::string s) {
  s.resize(raw::padded8(uint32_t(s.size())), '\0');
  return s;
}

std::string experiment_body(uint32_t line, uint32_t pct, uint64_t visits) {
  std::string file = "/src/main.cc", function = "work()", point = "done";
  raw::ExperimentHeader h{};
  h.duration_ns = 200000000;
  h.delay_ns = 1000000;
  h.speedup_pct = pct;
  h.line = line;
  h.npoints = 1;
  h.file_len = uint32_t(file.size());
  h.function_len = uint32_t(function.size());
  raw::ExperimentPoint p{};
  p.kind = 1;  // throughput
  p.name_len = uint32_t(point.size());
  p.delta = visits;
  std::string body(reinterpret_cast<char*>(&h), sizeof h);
  body += pad8(file) + pad8(function);
  body.append(reinterpret_cast<char*>(&p), sizeof p);
  return body + pad8(point);
}

class ExperimentTailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/andweorc-tail-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& bytes,
             std::ios::openmode mode = std::ios::trunc) {
    std::ofstream(dir_ + "/" + name, std::ios::binary | mode) << bytes;
  }
  std::string dir_;
};

TEST_F(ExperimentTailTest, ReadsEachCompleteRecordOnce) {
  RawFile f;
  raw::ProcessRecord pr{};
  pr.pid = 4242;
  f.record(raw::kProcess, &pr, sizeof pr);
  uint64_t samples[8] = {};
  f.record(raw::kSamples, samples, sizeof samples);
  std::string e1 = experiment_body(12, 30, 500);
  f.record(raw::kExperiment, e1.data(), e1.size());
  size_t first = f.size();
  std::string e2 = experiment_body(40, 0, 900);
  f.record(raw::kExperiment, e2.data(), e2.size());
  const std::string& all = f.bytes();

  // The second experiment is cut in the middle, as while the collector
  // writes it.
  write("raw-4242-0.awr", all.substr(0, first + 20));
  ExperimentTail tail(dir_);
  std::vector<profile::Experiment> got = tail.poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].line, 12);
  EXPECT_EQ(got[0].speedup_pct, 30);
  EXPECT_EQ(got[0].pid, 4242);
  EXPECT_EQ(got[0].function, "work()");
  ASSERT_EQ(got[0].points.size(), 1u);
  EXPECT_EQ(got[0].points[0].visits, 500u);
  EXPECT_DOUBLE_EQ(got[0].duration_s, 0.2);

  EXPECT_TRUE(tail.poll().empty());
  write("raw-4242-0.awr", all.substr(first + 20), std::ios::app);
  got = tail.poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].line, 40);
  EXPECT_EQ(got[0].points[0].visits, 900u);
  EXPECT_TRUE(tail.poll().empty());
}

TEST_F(ExperimentTailTest, PicksUpNewFilesAndSkipsForeignOnes) {
  write("notes.awr", std::string(64, 'x'));  // wrong magic
  write("empty.awr", "");                    // header not written yet
  ExperimentTail tail(dir_);
  EXPECT_TRUE(tail.poll().empty());

  RawFile child;
  std::string e = experiment_body(7, 50, 10);
  child.record(raw::kExperiment, e.data(), e.size());
  write("raw-99-1.awr", child.bytes());
  write("empty.awr", child.bytes());
  EXPECT_EQ(tail.poll().size(), 2u);
}

TEST_F(ExperimentTailTest, ACorruptSizeStopsThatFileOnly) {
  RawFile bad;
  raw::RecordHeader h{raw::kExperiment, 0xFFFFFFFFu};
  bad.append(&h, sizeof h);
  write("raw-1-0.awr", bad.bytes() + std::string(64, '\0'));
  RawFile good;
  std::string e = experiment_body(3, 10, 10);
  good.record(raw::kExperiment, e.data(), e.size());
  write("raw-2-0.awr", good.bytes());
  ExperimentTail tail(dir_);
  EXPECT_EQ(tail.poll().size(), 1u);
  EXPECT_TRUE(tail.poll().empty());
}

// An experiment record of line 5 at 50%, [start, start + 200 ms).
std::string timed_experiment(uint64_t start_ns) {
  std::string body = experiment_body(5, 50, 100);
  raw::ExperimentHeader h;
  std::memcpy(&h, body.data(), sizeof h);
  h.start_ns = start_ns;
  std::memcpy(body.data(), &h, sizeof h);
  return body;
}

// One sample of thread 1 at `time_ns`.
void sample(RawFile& f, uint64_t time_ns) {
  struct {
    raw::SampleHeader h;
    uint64_t frames[1];
  } s{{1, 1, 0, time_ns, 1, 0}, {0x400010}};
  f.record(raw::kSamples, &s, sizeof s);
}

// The collector writes a window's last samples after the experiment's
// record: the experiment waits for them, and its cpu_s counts them.
TEST_F(ExperimentTailTest, AnExperimentWaitsForTheSamplesOfItsWindow) {
  RawFile f;
  f.process(5, "/bin/prog");  // a 1 ms sampler
  uint64_t start = 1000000000;
  for (int i = 0; i < 150; ++i) sample(f, start + i * 1000000ull);
  std::string e = timed_experiment(start);
  f.record(raw::kExperiment, e.data(), e.size());
  write("raw-5-0.awr", f.bytes());
  ExperimentTail tail(dir_);
  EXPECT_TRUE(tail.poll().empty());  // samples up to 150 ms only
  for (int i = 150; i < 260; ++i) sample(f, start + i * 1000000ull);
  write("raw-5-0.awr", f.bytes());
  std::vector<profile::Experiment> got = tail.poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NEAR(got[0].cpu_s, 0.2, 1e-12);  // 200 samples of 1 ms
  // The same when the samples are kept for the live view.
  ExperimentTail keeping(dir_);
  keeping.keep_samples(true);
  got = keeping.poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NEAR(got[0].cpu_s, 0.2, 1e-12);
  EXPECT_EQ(keeping.take_samples().at(0).samples.size(), 260u);
}

TEST_F(ExperimentTailTest, AnExperimentWaitsOnePollAtMost) {
  RawFile f;
  f.process(5, "/bin/prog");
  uint64_t start = 1000000000;
  for (int i = 0; i < 100; ++i) sample(f, start + i * 1000000ull);
  std::string e = timed_experiment(start);
  f.record(raw::kExperiment, e.data(), e.size());
  write("raw-5-0.awr", f.bytes());
  ExperimentTail tail(dir_);
  EXPECT_TRUE(tail.poll().empty());
  // The program used no more CPU: the next poll releases it as it is.
  std::vector<profile::Experiment> got = tail.poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_NEAR(got[0].cpu_s, 0.1, 1e-12);
}

TEST_F(ExperimentTailTest, TheEndOfTheProcessReleasesItsExperiments) {
  RawFile f;
  f.process(5, "/bin/prog");
  std::string e = timed_experiment(1000000000);
  f.record(raw::kExperiment, e.data(), e.size());
  raw::EndRecord end{2000000000};
  f.record(raw::kEnd, &end, sizeof end);
  write("raw-5-0.awr", f.bytes());
  ExperimentTail tail(dir_);
  std::vector<profile::Experiment> got = tail.poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_DOUBLE_EQ(got[0].cpu_s, 0);  // sampled, and no sample in it
}

std::string points_body(const std::string& name, uint32_t kind,
                        uint64_t value) {
  raw::PointsHeader h{1, 0};
  raw::PointEntry e{kind, uint32_t(name.size()), value};
  std::string body(reinterpret_cast<char*>(&h), sizeof h);
  body.append(reinterpret_cast<char*>(&e), sizeof e);
  return body + pad8(name);
}

RawFile process_file(int pid) {
  RawFile f;
  raw::ProcessRecord pr{};
  pr.pid = pid;
  f.record(raw::kProcess, &pr, sizeof pr);
  return f;
}

TEST_F(ExperimentTailTest, PointTotalsAreEachProcesssLastSnapshotSummed) {
  RawFile a = process_file(1), b = process_file(2);
  std::string p1 = points_body("done", 1, 100),
              p2 = points_body("done", 1, 250);
  a.record(raw::kPoints, p1.data(), p1.size());
  a.record(raw::kPoints, p2.data(), p2.size());  // replaces, not adds
  std::string q = points_body("done", 1, 40), l = points_body("query", 2, 7);
  b.record(raw::kPoints, q.data(), q.size());
  write("raw-1-0.awr", a.bytes());
  write("raw-2-0.awr", b.bytes());
  ExperimentTail tail(dir_);
  tail.poll();
  std::vector<RawPoint> totals = tail.point_totals();
  ASSERT_EQ(totals.size(), 1u);
  EXPECT_EQ(totals[0].name, "done");
  EXPECT_EQ(totals[0].value, 290u);
  // A later snapshot of one process replaces its part; a new point appears.
  b.record(raw::kPoints, l.data(), l.size());
  write("raw-2-0.awr", b.bytes());
  tail.poll();
  totals = tail.point_totals();
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(totals[0].value, 250u);  // process 2 no longer reports "done"
  EXPECT_EQ(totals[1].name, "query");
  EXPECT_EQ(totals[1].kind, 2u);
}

TEST_F(ExperimentTailTest, ThreadsAreTheStartsSeenInEveryProcess) {
  RawFile a = process_file(1), b = process_file(2);
  auto thread = [](RawFile& f, uint32_t tid, raw::ThreadEvent event) {
    raw::ThreadRecord tr{tid, event, 0};
    f.record(raw::kThread, &tr, sizeof tr);
  };
  thread(a, 10, raw::kThreadStart);
  thread(a, 11, raw::kThreadStart);
  thread(a, 11, raw::kThreadExit);  // an exit does not uncount a thread
  thread(b, 20, raw::kThreadStart);
  write("raw-1-0.awr", a.bytes());
  write("raw-2-0.awr", b.bytes());
  ExperimentTail tail(dir_);
  EXPECT_EQ(tail.threads(), 0u);
  tail.poll();
  EXPECT_EQ(tail.threads(), 3u);
  tail.poll();  // read once
  EXPECT_EQ(tail.threads(), 3u);
}

TEST_F(ExperimentTailTest, SamplesAreKeptOnlyWhenAskedAndTakenOnce) {
  RawFile f = process_file(7);
  std::string maps = "00400000-00401000 r-xp 00000000 08:01 1 /bin/prog\n";
  f.record(raw::kMaps, maps.data(), maps.size());
  struct {
    raw::SampleHeader h;
    uint64_t frames[2];
  } s{{9, 2, 0, 123, 3, 0}, {0x400010, 0x400020}};
  f.record(raw::kSamples, &s, sizeof s);
  write("raw-7-0.awr", f.bytes());

  ExperimentTail off(dir_);
  off.poll();
  EXPECT_TRUE(off.take_samples().empty());

  ExperimentTail on(dir_);
  on.keep_samples(true);
  on.poll();
  auto got = on.take_samples();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].pid, 7);
  ASSERT_NE(got[0].maps, nullptr);
  EXPECT_EQ(*got[0].maps, maps);
  ASSERT_EQ(got[0].samples.size(), 1u);
  EXPECT_EQ(got[0].samples[0].frames[0], 0x400010u);
  EXPECT_EQ(got[0].samples[0].weight, 3u);
  EXPECT_TRUE(on.take_samples().empty());  // taken once
}

// The live flame graph hides label trampolines as the written profile
// does: the tail keeps which code is label machinery, one binding per
// trampoline table (not every binding: they grow with the run).
TEST_F(ExperimentTailTest, SamplesComeWithTheLabelTablesSeen) {
  RawFile f = process_file(7);
  f.label_binding(5, 0x5010, 0x5020, 0x5000, 0x9000, 1, "endpoint", "a");
  f.label_binding(6, 0x5020, 0x5030, 0x5000, 0x9000, 2, "endpoint", "b");
  f.label_binding(7, 0xa010, 0xa020, 0xa000, 0xb000, 1, "batch", "c");
  struct {
    raw::SampleHeader h;
    uint64_t frames[1];
  } s{{9, 1, 0, 123, 1, 0}, {0x400010}};
  f.record(raw::kSamples, &s, sizeof s);
  write("raw-7-0.awr", f.bytes());
  ExperimentTail on(dir_);
  on.keep_samples(true);
  on.poll();
  auto got = on.take_samples();
  ASSERT_EQ(got.size(), 1u);
  ASSERT_NE(got[0].label_tables, nullptr);
  ASSERT_EQ(got[0].label_tables->size(), 2u);
  LabelResolver r(*got[0].label_tables);
  EXPECT_TRUE(r.is_machinery(0x5000));
  EXPECT_TRUE(r.is_machinery(0x8fff));
  EXPECT_TRUE(r.is_machinery(0xa123));
  EXPECT_FALSE(r.is_machinery(0x9000));
  EXPECT_FALSE(r.is_machinery(0x400010));
  EXPECT_TRUE((*got[0].label_tables)[0].value.empty());  // no labels kept
}

}  // namespace
}  // namespace andweorc::ingest
