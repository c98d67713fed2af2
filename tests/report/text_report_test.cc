// text_report_test.cc: golden files for whole reports, plus targeted checks.
//
// Golden files are in tests/report/golden/. To regenerate after an intended
// change: ANDWEORC_UPDATE_GOLDEN=1 ./report_test, then review the diff.
#include "report/text_report.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "causal_fixtures.h"
#include "report/display.h"
#include "support/golden.h"

namespace andweorc::report {
namespace {

using profile::Frame;
using profile::PointKind;
using profile::Profile;

std::string render(const Profile& p, TextOptions options = {}) {
  std::ostringstream out;
  write_text(p, out, options);
  return out.str();
}

using ::andweorc::testing::expect_golden;

// A server run: two processes, perf sampler, some library time, points.
Profile typical() {
  Profile p;
  p.run.command = {"./server", "--threads", "4", "--name", "my server"};
  p.run.start_time = "2024-05-01T12:00:00Z";
  p.run.duration_s = 2.5;
  p.run.exit_status = 0;
  p.run.sampler = "perf";
  p.run.sample_period_ns = 1000000;
  p.run.tool_version = "0.1.0";
  p.scope.binary = {"MAIN"};
  p.scope.source = {};
  p.processes = {{4242, "/home/dev/proj/build/server", true},
                 {4250, "/home/dev/proj/build/server", false}};
  p.threads = 5;
  p.samples = 2000;
  p.lost_samples = 3;
  const std::string src = "/home/dev/proj/src/";
  const std::string bin = "/home/dev/proj/build/server";
  const std::string libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  p.frames = {
      /*0*/ {"hash_bytes", src + "hash.c", 17, bin, false, true},
      /*1*/ {"lookup", src + "table.c", 88, bin, false, true},
      /*2*/ {"handle_request", src + "server.c", 120, bin, false, true},
      /*3*/ {"worker_main", src + "server.c", 301, bin, false, true},
      /*4*/ {"memcmp", "", 0, libc, false, false},
      /*5*/ {"lookup", src + "table.c", 91, bin, false, true},
      /*6*/ {"parse_header", src + "http/parse.c", 42, bin, false, true},
      /*7*/ {"next_token", src + "http/lexer.h", 9, bin, true, true},
      /*8*/ {"start_thread", "", 0, libc, false, false},
      /*9*/ {"write_log", src + "log.c", 12, bin, false, true},
      /*10*/ {"__libc_write", "", 0, libc, false, false},
  };
  p.stacks = {
      {{0, 1, 2, 3, 8}, 700},  // hash_bytes
      {{4, 5, 2, 3, 8}, 500},  // memcmp <- lookup:91
      {{7, 6, 2, 3, 8}, 300},  // next_token (inlined into parse_header)
      {{6, 2, 3, 8}, 150},     // parse_header:42
      {{2, 3, 8}, 100},        // handle_request:120
      {{10, 9, 3, 8}, 90},     // write <- write_log:12
      {{1, 2, 3, 8}, 60},      // lookup:88
      {{8}, 100},              // only libc: out of scope
  };
  p.points = {{"requests", PointKind::kThroughput, 12500, 0, 0},
              {"request_latency", PointKind::kLatency, 0, 12510, 12500}};
  p.warnings = {
      "process 4250 (server) did not shut down normally (killed or crashed): "
      "its last few milliseconds of samples may be missing",
      "3 samples were dropped because a buffer was full"};
  return p;
}

TEST(TextReportGolden, Typical) {
  expect_golden("typical.txt", render(typical(), {.top = 5}));
}

TEST(TextReportGolden, TypicalColor) {
  expect_golden("typical_color.txt",
                render(typical(), {.top = 5, .color = true}));
}

// Samples, but none in scope; mostly unmapped; timer fallback; no points.
Profile no_scope() {
  Profile p;
  p.run.command = {"/usr/bin/python3", "bench.py"};
  p.run.duration_s = 0.75;
  p.run.exit_status = 1;
  p.run.sampler = "timer";
  p.run.sample_period_ns = 4000000;
  p.scope.binary = {"MAIN"};
  p.scope.source = {"/home/dev/*"};
  p.processes = {{77, "/usr/bin/python3.11", true}};
  p.threads = 1;
  p.samples = 150;
  p.frames = {
      {"_PyEval_EvalFrameDefault", "", 0, "/usr/bin/python3.11", false, false},
      {"PyObject_Malloc", "Objects/obmalloc.c", 1966, "/usr/bin/python3.11",
       false, false},
  };
  p.stacks = {{{0}, 130}, {{1, 0}, 20}};
  p.warnings = {
      "perf events are unavailable (perf_event_paranoid is 3), so samples "
      "come from the timer fallback. Fix: sudo sysctl "
      "kernel.perf_event_paranoid=1"};
  return p;
}

TEST(TextReportGolden, NoSampleInScope) {
  expect_golden("no_scope.txt", render(no_scope()));
}

// A run that recorded nothing.
Profile empty_run() {
  Profile p;
  p.run.command = {"true"};
  p.run.duration_s = 0.01;
  p.run.exit_signal = 9;
  p.run.exit_status = -1;
  p.run.sampler = "none";
  p.scope.binary = {"MAIN"};
  p.warnings = {
      "no profiling data: the program exited before the runtime started, or "
      "it is statically linked (LD_PRELOAD cannot reach it)"};
  return p;
}

TEST(TextReportGolden, EmptyRun) {
  expect_golden("empty.txt", render(empty_run()));
}

// C++ names and deep paths that do not fit in 80 columns.
Profile long_names() {
  Profile p;
  p.run.command = {"./bench_containers_with_a_rather_long_executable_name",
                   "--benchmark_filter=BM_FlatHashMap/.*/threads:8"};
  p.run.duration_s = 61.25;
  p.run.sampler = "perf";
  p.run.sample_period_ns = 250000;
  p.scope.binary = {"MAIN", "*/libcontainers.so*"};
  p.scope.source = {"/work/**"};
  p.processes = {{9, "/work/b/bench", true}};
  p.threads = 8;
  p.samples = 1000;
  const std::string mod = "/work/b/bench";
  p.frames = {
      {"absl::container_internal::raw_hash_set<absl::container_internal::"
       "FlatHashMapPolicy<std::string, int>, absl::Hash<std::string>, "
       "std::equal_to<std::string>>::find<std::string>(std::string const&)",
       "/work/third_party/abseil-cpp/absl/container/internal/raw_hash_set.h",
       2341, mod, true, true},
      {"BM_FlatHashMap(benchmark::State&)",
       "/work/bench/containers/flat_hash_map_benchmark.cc", 57, mod, false,
       true},
      {"ünïcode_fn", "/work/bench/containers/ünï.cc", 3, mod, false, true},
  };
  p.stacks = {{{0, 1}, 600}, {{1}, 300}, {{2, 1}, 100}};
  return p;
}

TEST(TextReportGolden, LongNamesAt80Columns) {
  expect_golden("long_names.txt",
                render(long_names(), {.top = 10, .width = 80}));
}

// ---- targeted checks (independent of the golden files) ----

TEST(TextReport, LinesNeverExceedWidth) {
  for (size_t width : {60u, 80u, 100u}) {
    for (const Profile& p :
         {typical(), no_scope(), empty_run(), long_names()}) {
      std::istringstream in(render(p, {.top = 0, .width = width}));
      std::string line;
      while (std::getline(in, line)) {
        EXPECT_LE(display_width(line), width) << line;
        EXPECT_TRUE(line.empty() || line.back() != ' ') << "[" << line << "]";
      }
    }
  }
}

TEST(TextReport, OutOfScopeLinesAreNotListed) {
  std::string text = render(typical(), {.top = 0});
  EXPECT_EQ(text.find("memcmp"), std::string::npos);
  EXPECT_EQ(text.find("start_thread"), std::string::npos);
  EXPECT_EQ(text.find("__libc_write"), std::string::npos);
  // memcmp's samples went to its in-scope caller, lookup at table.c:91.
  EXPECT_NE(text.find("25.0%      500  table.c:91"), std::string::npos) << text;
}

TEST(TextReport, TopZeroListsEverythingAndTopLimits) {
  std::string all = render(typical(), {.top = 0});
  EXPECT_NE(all.find("log.c:12"), std::string::npos);
  EXPECT_EQ(all.find("more lines"), std::string::npos);
  std::string two = render(typical(), {.top = 2});
  EXPECT_EQ(two.find("log.c:12"), std::string::npos);
  // 7 lines in scope, 2 shown: 700 + 500 of 1900 in scope; 700 of 2000 left.
  EXPECT_NE(two.find("... 5 more lines with 35.0% of samples"),
            std::string::npos)
      << two;
}

// The header says what the profiler's own threads cost, summed over the
// processes that measured it; nothing when none did.
TEST(TextReport, HeaderSaysTheProfilersCpuWhenKnown) {
  Profile p = typical();
  EXPECT_EQ(render(p).find("profiler "), std::string::npos);
  ASSERT_FALSE(p.processes.empty());
  p.processes[0].cpu_s = 2.5;
  p.processes[0].profiler_cpu_s = 0.0125;
  profile::Process other = p.processes[0];
  other.pid += 1;
  other.cpu_s = 1.5;
  other.profiler_cpu_s = 0.0075;
  p.processes.push_back(other);
  std::string text = render(p, {.width = 200});
  EXPECT_NE(text.find("  profiler    its threads used 20.0 ms of CPU, 0.5% of "
                      "the processes' 4.00 s"),
            std::string::npos)
      << text;
}

TEST(TextReport, DerivedWarningFollowsProfileWarningsOnce) {
  Profile p = no_scope();
  p.warnings.push_back(
      "only 0% of samples mapped to a source line: build with -g");
  std::string text = render(p, {.width = 200});
  size_t fallback = text.find("perf events are unavailable");
  size_t mapped = text.find("only 0% of samples mapped");
  ASSERT_NE(fallback, std::string::npos);
  ASSERT_NE(mapped, std::string::npos);
  EXPECT_LT(fallback, mapped);
  EXPECT_EQ(text.find("only 0% of samples mapped", mapped + 1),
            std::string::npos);
}

TEST(TextReport, NoColorMeansNoEscapes) {
  EXPECT_EQ(render(typical()).find('\033'), std::string::npos);
  EXPECT_NE(render(typical(), {.color = true}).find("\033[1m"),
            std::string::npos);
}

TEST(TextReport, ColorOnlyAddsEscapes) {
  std::string plain = render(typical(), {.top = 5});
  std::string color = render(typical(), {.top = 5, .color = true});
  std::string stripped;
  for (size_t i = 0; i < color.size(); ++i) {
    if (color[i] == '\033') {
      i = color.find('m', i);
      continue;
    }
    stripped.push_back(color[i]);
  }
  EXPECT_EQ(stripped, plain);
}

// Paths as a build records them: "//" between the compilation directory
// and the file name, ".." out of a subdirectory.
TEST(TextReport, PathsAreNormalisedAndRelative) {
  Profile p = testing::causal_profile();
  const std::string from = "/home/dev/proj/src/";
  const std::string to = "/home/ci/libzstd-1.5.4+dfsg2//programs/../lib/";
  auto move = [&](std::string& f) {
    if (f.rfind(from, 0) == 0) f = to + f.substr(from.size());
  };
  for (auto& f : p.frames) move(f.file);
  for (auto& e : p.experiments) move(e.file);
  std::string text = render(p);
  EXPECT_EQ(text.find("//"), std::string::npos) << text;
  std::string no_ellipses = text;
  for (size_t at; (at = no_ellipses.find("...")) != std::string::npos;) {
    no_ellipses.erase(at, 3);
  }
  EXPECT_EQ(no_ellipses.find(".."), std::string::npos) << text;
  EXPECT_NE(text.find("relative to /home/ci/libzstd-1.5.4+dfsg2/lib/"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hash.c:17"), std::string::npos) << text;
  // --source-root decides when the files lie under it.
  TextOptions o;
  o.source_roots = {"/home/ci/libzstd-1.5.4+dfsg2"};
  std::string rooted = render(p, o);
  EXPECT_NE(rooted.find("relative to /home/ci/libzstd-1.5.4+dfsg2/\n"),
            std::string::npos)
      << rooted;
  EXPECT_NE(rooted.find("lib/hash.c:17"), std::string::npos) << rooted;
}

TEST(TextReport, SummaryComesBeforeTheDetails) {
  std::string text = render(testing::causal_profile());
  size_t summary = text.find("Summary:");
  ASSERT_NE(summary, std::string::npos) << text;
  EXPECT_LT(summary, text.find("Progress points:"));
  EXPECT_LT(summary, text.find("Causal profile"));
  EXPECT_NE(text.find("requests: Top region: hash.c:17 in hash_bytes, impact",
                      summary),
            std::string::npos)
      << text;
  // A sampling-only run has no answer to summarise.
  EXPECT_EQ(render(typical()).find("Summary:"), std::string::npos);
}

}  // namespace
}  // namespace andweorc::report
