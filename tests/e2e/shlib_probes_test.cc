// shlib_probes_test.cc: --progress, --latency line pairs and --trace on
// functions and lines of a shared library the program links
// (programs/shlib_work.cc, libshlib_work.so, loaded at a random base): the
// counts must equal the calls the program made, patched in process and
// through each kernel fallback; a name found nowhere still stops the run.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "profile/profile_json.h"
#include "run_helpers.h"

namespace andweorc::testing {
namespace {

const profile::ProgressPoint* shlib_point(const profile::Profile& p,
                                          const std::string& name) {
  for (const auto& point : p.points)
    if (point.name == name) return &point;
  return nullptr;
}

class ShlibProbes : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

// dso_work is called 400 times (200 from a second thread, except with
// uprobes: their inherited counting events may lose counts after a thread
// exits, docs/probes.md), its line as often; dso_tiny once (too short to
// patch: the fallback counts it).
TEST_P(ShlibProbes, FunctionsAndLinesInALibraryCountEveryCall) {
  const std::string source = std::string(PROGRAMS_SRC) + "/shlib_work.cc";
  int line = line_of(source, "DSO_WORK_LINE");
  ASSERT_GT(line, 0);
  const std::string mechanism = GetParam();
  std::vector<std::string> argv = {
      ANDWEORC_BIN, "run", "--no-experiments", "--probe-mechanism", mechanism,
      "--progress", "work=dso_work", "--progress",
      "line=libshlib_work.so:shlib_work.cc:" + std::to_string(line),
      "--progress", "tiny=dso_tiny",
      // A line of the executable too: its code and the library's are far
      // apart (each gets its own trampoline area when patched).
      "--progress",
      "exe=shlib_user.cc:" +
          std::to_string(line_of(std::string(PROGRAMS_SRC) + "/shlib_user.cc",
                                 "TINY_CALL_LINE")),
      "-o", dir_ + "/p.json"};
  argv.insert(argv.end(),
              {"--", std::string(PROGRAMS_DIR) + "/shlib_user", "400"});
  if (mechanism != "uprobe") argv.push_back("threads");
  RunResult r = run_command(argv);
  if (r.status == 2 &&
      (r.err.find("cannot count probe hits") != std::string::npos ||
       r.err.find("--probe-mechanism") != std::string::npos))
    GTEST_SKIP() << "the kernel refuses " << mechanism << ": " << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_NE(r.out.find("calls 400"), std::string::npos) << r.out;
  // The tool says where it found them.
  EXPECT_NE(r.err.find("in libshlib_work.so"), std::string::npos) << r.err;
  auto read = profile::read_profile(dir_ + "/p.json");
  ASSERT_TRUE(read.ok()) << read.error;
  const auto* work = shlib_point(*read.profile, "work");
  const auto* at_line = shlib_point(*read.profile, "line");
  const auto* tiny = shlib_point(*read.profile, "tiny");
  ASSERT_NE(work, nullptr) << r.err;
  ASSERT_NE(at_line, nullptr) << r.err;
  ASSERT_NE(tiny, nullptr) << r.err;
  EXPECT_EQ(work->visits, 400u);
  EXPECT_EQ(at_line->visits, 400u);
  EXPECT_EQ(tiny->visits, 1u);
  const auto* exe = shlib_point(*read.profile, "exe");
  ASSERT_NE(exe, nullptr) << r.err;
  EXPECT_EQ(exe->visits, 1u);
  if (mechanism == "patch") {
    // dso_work and its line patched, dso_tiny refused: it falls back.
    EXPECT_NE(r.err.find("'tiny' at dso_tiny(int) entry"), std::string::npos)
        << r.err;
    bool stated = false;
    for (const auto& w : read.profile->warnings)
      stated =
          stated || (w.find("patched in process") != std::string::npos &&
                     w.find("the other 1 address(es)") != std::string::npos);
    EXPECT_TRUE(stated);
  }
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, ShlibProbes,
                         ::testing::Values("patch", "breakpoint", "uprobe"));

TEST(ShlibTrace, EveryCallOfALibraryFunctionIsTimed) {
  std::string dir = temp_dir();
  RunResult r = run_command({ANDWEORC_BIN, "run", "--no-experiments", "--trace",
                             "dso_work", "-o", dir + "/p.json", "--",
                             std::string(PROGRAMS_DIR) + "/shlib_user", "300"});
  auto read = profile::read_profile(dir + "/p.json");
  std::system(("rm -rf " + dir).c_str());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("trace 'dso_work': 1 copy(ies) in libshlib_work.so"),
            std::string::npos)
      << r.err;
  ASSERT_TRUE(read.ok()) << read.error;
  const profile::TracedFunction* t = nullptr;
  for (const auto& f : read.profile->traces)
    if (f.name == "dso_work") t = &f;
  ASSERT_NE(t, nullptr) << r.err;
  EXPECT_TRUE(t->traced);
  EXPECT_EQ(t->durations_ns.size(), 300u);
}

TEST(ShlibRefused, ANameFoundNowhereStopsBeforeTheProgramStarts) {
  std::string dir = temp_dir();
  RunResult r = run_command(
      {ANDWEORC_BIN, "run", "-q", "--progress", "x=no_such_dso_function", "-o",
       dir + "/p.json", "--", std::string(PROGRAMS_DIR) + "/shlib_user", "10"});
  RunResult lib =
      run_command({ANDWEORC_BIN, "run", "-q", "--progress",
                   "x=libnot_linked.so:dso_work", "-o", dir + "/p.json", "--",
                   std::string(PROGRAMS_DIR) + "/shlib_user", "10"});
  std::system(("rm -rf " + dir).c_str());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");  // the program never ran
  EXPECT_NE(r.err.find("no function named 'no_such_dso_function'"),
            std::string::npos)
      << r.err;
  // The library with DWARF was searched too, and the message says so.
  EXPECT_NE(r.err.find("libshlib_work.so"), std::string::npos) << r.err;
  EXPECT_EQ(lib.status, 2);
  EXPECT_EQ(lib.out, "");
  EXPECT_NE(lib.err.find("'libnot_linked.so' is not a library"),
            std::string::npos)
      << lib.err;
}

// A library the program loads with dlopen after start-up, named by its
// path: the probes wait for it and are patched once it is loaded (the
// program calls 200 ms after the load: the runtime looks every 20 ms).
class LaterLibrary : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string lib() const {
    return std::string(PROGRAMS_DIR) + "/libshlib_plugin.so";
  }
  profile::Profile run(const std::vector<std::string>& options,
                       const std::string& load, RunResult* r) {
    std::vector<std::string> argv = {ANDWEORC_BIN, "run", "-q",
                                     "--no-experiments"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(),
                {"-o", dir_ + "/p.json", "--",
                 std::string(PROGRAMS_DIR) + "/dlopen_user", load, "300"});
    *r = run_command(argv);
    auto read = profile::read_profile(dir_ + "/p.json");
    EXPECT_TRUE(read.ok()) << read.error << "\n" << r->err;
    return read.ok() ? *read.profile : profile::Profile{};
  }
  std::string dir_;
};

TEST_F(LaterLibrary, ProbesWaitForTheLibraryAndCountEveryCallAfter) {
  RunResult r;
  profile::Profile p = run(
      {"--progress", "work=" + lib() + ":dso_work", "--latency",
       "lat=" + lib() + ":shlib_work.cc:" +
           std::to_string(line_of(std::string(PROGRAMS_SRC) + "/shlib_work.cc",
                                  "DSO_WORK_LINE")) +
           "," + lib() + ":shlib_work.cc:" +
           std::to_string(line_of(std::string(PROGRAMS_SRC) + "/shlib_work.cc",
                                  "DSO_WORK_LINE"))},
      lib(), &r);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("calls 300"), std::string::npos) << r.out;
  const auto* work = shlib_point(p, "work");
  ASSERT_NE(work, nullptr) << r.err;
  EXPECT_EQ(work->visits, 300u);
  // A line pair whose begin and end are one address: one jump, both count.
  const auto* lat = shlib_point(p, "lat");
  ASSERT_NE(lat, nullptr) << r.err;
  EXPECT_EQ(lat->begins, 300u);
  EXPECT_EQ(lat->ends, 300u);
  std::string notes;
  for (const auto& w : p.warnings) notes += w + "\n";
  EXPECT_NE(notes.find("wait for their library"), std::string::npos) << notes;
  EXPECT_NE(notes.find("once its library was loaded after start-up"),
            std::string::npos)
      << notes;
}

TEST_F(LaterLibrary, ATraceWaitsForTheLibraryToo) {
  RunResult r;
  profile::Profile p = run({"--trace", lib() + ":dso_work"}, lib(), &r);
  ASSERT_EQ(r.status, 0) << r.err;
  size_t calls = 0;
  for (const auto& t : p.traces) calls += t.durations_ns.size();
  EXPECT_EQ(calls, 300u) << r.err;
}

TEST_F(LaterLibrary, ALibraryNeverLoadedIsSaidNotCounted) {
  RunResult r;
  profile::Profile p =
      run({"--progress", "work=" + lib() + ":dso_work"}, "-", &r);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto* work = shlib_point(p, "work");
  EXPECT_TRUE(work == nullptr || work->visits == 0);
  std::string notes;
  for (const auto& w : p.warnings) notes += w + "\n";
  EXPECT_NE(notes.find("never counted if it never does"), std::string::npos)
      << notes;
}

}  // namespace
}  // namespace andweorc::testing
