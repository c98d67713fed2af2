// profile_json_test.cc: round trips and every reader error the brief names.
#include "profile/profile_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "parse_error.h"
#include "test_dir.h"

namespace andweorc::profile {
namespace {

using nlohmann::json;
using testing::error_of;
using testing::slurp;
using testing::spit;
using testing::TestDir;

// A profile that sets every field to something other than its default.
Profile full_profile() {
  Profile p;
  p.run.command = {"./server", "--port", "80 81", "quote\"back\\slash"};
  p.run.start_time = "2024-05-01T12:00:00Z";
  p.run.duration_s = 2.5;
  p.run.exit_status = -1;
  p.run.exit_signal = 9;
  p.run.sampler = "timer";
  p.run.sample_period_ns = 1000000;
  p.run.tool_version = "0.1.0";
  p.scope.binary = {"MAIN", "*/libfoo.so*"};
  p.scope.source = {"/src/**"};
  p.processes = {{101, "/bin/server", true}, {102, "/bin/helper", false}};
  p.processes[0].cpu_s = 2.5;  // since 1.8
  p.processes[0].profiler_cpu_s = 0.0125;
  p.threads = 7;
  p.samples = std::numeric_limits<uint64_t>::max();
  p.lost_samples = 3;
  p.frames = {
      {"inlined_helper(int)", "/src/h.h", 12, "/bin/server", true, true},
      {"main", "/src/main.cc", 40, "/bin/server", false, true},
      {"memcpy", "", 0, "/lib/libc.so.6", false, false},
      {"", "", 0, "", false, false},
      {"ünïcode∑", "/src/ü.cc", 2147483647, "/bin/server", false, true},
  };
  p.stacks = {{{0, 1}, 10}, {{2, 1}, 5}, {{3}, 1}, {{}, 2}, {{4, 4, 1}, 0}};
  p.points = {{"requests", PointKind::kThroughput, 1234, 0, 0},
              {"query", PointKind::kLatency, 0, 50, 49}};
  p.warnings = {"sampling used the timer fallback", "second warning"};
  p.settings = {true, "/src/main.cc:40", 25, false, 0.5, 42, "line"};
  profile::Experiment e;
  e.file = "/src/main.cc";
  e.line = 40;
  e.function = "main";
  e.speedup_pct = 25;
  e.duration_s = 0.52;
  e.delay_s = 0.02;
  e.selected_samples = 17;
  e.pid = 101;
  e.points = {{"requests", PointKind::kThroughput, 99, 0, 0, 0, 0},
              {"query", PointKind::kLatency, 0, 5, 4, -1, 2}};
  p.experiments = {e};
  e.granularity = "function";
  e.speedup_pct = 0;
  e.points.clear();
  p.experiments.push_back(e);
  p.convergence = {"flat", 212, 5, 0, "requests", "", 0, 0, 0, 0, 0.05, 0.5};
  p.settings.coarse_to_fine = true;
  return p;
}

std::string text_of(const Profile& p) { return dump_profile(p); }

json doc() { return json::parse(text_of(full_profile())); }

TEST(ProfileJson, RoundTripsEveryField) {
  Profile p = full_profile();
  ReadResult r = parse_profile(dump_profile(p), "p.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, p);
}

// 1.3 files have neither coarse_to_fine nor the leader's q_value: they read
// as false and 1.
TEST(ProfileJson, FieldsSince14AreOptional) {
  json j = doc();
  j["settings"].erase("coarse_to_fine");
  j["convergence"].erase("q_value");
  j["version"] = "1.3";
  ReadResult r = parse_profile(j.dump(), "p.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_FALSE(r.profile->settings.coarse_to_fine);
  EXPECT_EQ(r.profile->convergence.q_value, 1.0);
  EXPECT_EQ(doc()["convergence"]["q_value"], 0.5);
  EXPECT_EQ(doc()["settings"]["coarse_to_fine"], true);
}

// 1.8: the profiler's CPU per process; absent (unknown) reads as -1, and a
// process without it is written without it.
TEST(ProfileJson, ProcessCpuIsOptional) {
  json j = doc();
  EXPECT_EQ(j["processes"][0]["profiler_cpu_s"], 0.0125);
  EXPECT_FALSE(j["processes"][1].contains("cpu_s"));
  j["processes"][0].erase("cpu_s");
  j["processes"][0].erase("profiler_cpu_s");
  j["version"] = "1.7";
  ReadResult r = parse_profile(j.dump(), "p.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_LT(r.profile->processes[0].cpu_s, 0);
  EXPECT_LT(r.profile->processes[0].profiler_cpu_s, 0);
  // One without the other is an error naming the missing field.
  json half = doc();
  half["processes"][0].erase("cpu_s");
  ReadResult bad = parse_profile(half.dump(), "p.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("processes[0].cpu_s"), std::string::npos)
      << bad.error;
}

TEST(ProfileJson, RoundTripsCompactAndDefault) {
  Profile p = full_profile();
  ReadResult r = parse_profile(dump_profile(p, -1));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, p);
  std::string compact = dump_profile(p, -1);
  EXPECT_EQ(std::count(compact.begin(), compact.end(), '\n'), 1);
  EXPECT_EQ(compact.back(), '\n');

  Profile empty;
  ReadResult e = parse_profile(dump_profile(empty));
  ASSERT_TRUE(e.ok()) << e.error;
  EXPECT_EQ(*e.profile, empty);
}

TEST(ProfileJson, WritesDocumentedLayout) {
  json j = json::parse(text_of(full_profile()));
  EXPECT_EQ(j["format"], "andweorc-profile");
  EXPECT_EQ(j["version"], "1.8");
  EXPECT_EQ(j["convergence"]["state"], "flat");
  EXPECT_EQ(j["convergence"]["experiments"], 212);
  EXPECT_EQ(j["run"]["command"][2], "80 81");
  EXPECT_EQ(j["run"]["sampler"], "timer");
  EXPECT_EQ(j["counts"]["threads"], 7);
  EXPECT_EQ(j["counts"]["lost_samples"], 3);
  EXPECT_EQ(j["frames"][1]["file"], "/src/main.cc");  // full path kept
  EXPECT_EQ(j["frames"][1]["line"], 40);
  EXPECT_EQ(j["stacks"][1]["frames"], json::array({2, 1}));
  EXPECT_EQ(j["stacks"][1]["samples"], 5);
  EXPECT_EQ(j["points"][1]["kind"], "latency");
  EXPECT_EQ(j["points"][1]["begins"], 50);
  EXPECT_EQ(j["processes"][1]["clean_exit"], false);
  // "format" and "version" come first so `head` shows them.
  std::string text = text_of(full_profile());
  EXPECT_EQ(
      text.rfind("{\n  \"format\": \"andweorc-profile\",\n  \"version\"", 0),
      0u)
      << text.substr(0, 80);
  // One line per record in the long arrays.
  EXPECT_NE(
      text.find("\n    {\"function\":\"main\",\"file\":\"/src/main.cc\","
                "\"line\":40,\"module\":\"/bin/server\",\"inlined\":false,"
                "\"in_scope\":true},\n"),
      std::string::npos);
  EXPECT_NE(text.find("\n    {\"frames\":[0,1],\"samples\":10},\n"),
            std::string::npos);
}

TEST(ProfileJson, InvalidUtf8IsReplacedNotThrown) {
  Profile p;
  p.frames = {{"bad\xff", "/src/\xc3", 1, "", false, true}};
  std::string text;
  ASSERT_NO_THROW(text = dump_profile(p));
  ReadResult r = parse_profile(text);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->frames[0].function, "bad\xEF\xBF\xBD");
}

TEST(ProfileJson, NonFiniteDurationIsWrittenAsZero) {
  Profile p;
  p.run.duration_s = std::numeric_limits<double>::quiet_NaN();
  ReadResult r = parse_profile(dump_profile(p));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->run.duration_s, 0.0);
}

TEST(ProfileJson, WriteThenReadFile) {
  TestDir dir;
  std::string path = dir.file("profile.json");
  std::string error;
  ASSERT_TRUE(write_profile(full_profile(), path, &error)) << error;
  ReadResult r = read_profile(path);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, full_profile());
}

TEST(ProfileJson, WriteToMissingDirectoryFails) {
  std::string error;
  EXPECT_FALSE(
      write_profile(full_profile(), "/nonexistent-dir/p.json", &error));
  EXPECT_EQ(error,
            "cannot write /nonexistent-dir/p.json: No such file or directory");
}

// ---- file-level errors ----

TEST(ProfileJsonErrors, MissingFile) {
  TestDir dir;
  ReadResult r = read_profile(dir.file("nope.json"));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "cannot read " + dir.file("nope.json") +
                         ": No such file or directory");
}

TEST(ProfileJsonErrors, Directory) {
  TestDir dir;
  ReadResult r = read_profile(dir.path());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "cannot read " + dir.path() + ": it is a directory");
}

TEST(ProfileJsonErrors, EmptyFile) {
  TestDir dir;
  spit(dir.file("e.json"), "");
  EXPECT_EQ(read_profile(dir.file("e.json")).error,
            dir.file("e.json") + " is empty");
  EXPECT_EQ(parse_profile(" \n\t\n", "w.json").error, "w.json is empty");
}

TEST(ProfileJsonErrors, NotJson) {
  EXPECT_EQ(parse_profile("hello world", "x.txt").error,
            "x.txt is not an andweorc profile (not JSON)");
  EXPECT_EQ(parse_profile("\x7f"
                          "ELF\x02\x01",
                          "a.out")
                .error,
            "a.out is not an andweorc profile (not JSON)");
}

TEST(ProfileJsonErrors, TopLevelNotAnObject) {
  EXPECT_EQ(parse_profile("[1, 2]", "x").error,
            "x is not an andweorc profile (the top level is an array, not an "
            "object)");
  EXPECT_EQ(parse_profile("42", "x").error,
            "x is not an andweorc profile (the top level is the number 42, "
            "not an object)");
}

TEST(ProfileJsonErrors, TruncatedAtEveryOffset) {
  std::string text = dump_profile(full_profile());
  size_t end = text.find_last_not_of(" \n") + 1;  // the closing brace + 1
  ASSERT_GT(end, 100u);
  for (size_t cut = 1; cut < end; ++cut) {
    std::string part = text.substr(0, cut);
    ReadResult r = parse_profile(part, "p.json");
    ASSERT_FALSE(r.ok()) << "cut at " << cut;
    EXPECT_EQ(r.error.rfind("p.json: truncated or corrupt JSON at byte ", 0),
              0u)
        << "cut at " << cut << ": " << r.error;
  }
  // The byte reported is where the input ran out.
  std::string part = text.substr(0, 200);
  EXPECT_EQ(parse_profile(part, "p.json").error,
            "p.json: truncated or corrupt JSON at byte 201");
}

TEST(ProfileJsonErrors, TrailingGarbage) {
  std::string text = dump_profile(Profile{}) + "}";
  ReadResult r = parse_profile(text, "p.json");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("p.json: truncated or corrupt JSON at byte ", 0), 0u)
      << r.error;
}

TEST(ProfileJsonErrors, CorruptedBytesNeverCrash) {
  // Overwrite each byte with characters that break JSON or change types;
  // every result must be a clean success or a one-line error.
  std::string text = dump_profile(full_profile(), -1);
  for (size_t i = 0; i < text.size(); ++i) {
    for (char c : {'"', '}', '-', 'x', '\0', '9', '[', '\xff'}) {
      std::string bad = text;
      bad[i] = c;
      ReadResult r = parse_profile(bad, "p.json");
      if (!r.ok()) {
        EXPECT_FALSE(r.error.empty());
        EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
      }
    }
  }
}

TEST(ProfileJsonErrors, DeepNestingDoesNotCrash) {
  std::string deep = "{\"format\": " + std::string(200000, '[') +
                     std::string(200000, ']') + "}";
  EXPECT_EQ(parse_profile(deep, "d").error,
            "d is not an andweorc profile (\"format\" is an array, not "
            "\"andweorc-profile\")");
  std::string open = "{\"a\":" + std::string(200000, '[');
  EXPECT_FALSE(parse_profile(open, "d").ok());
}

// ---- format and version ----

TEST(ProfileJsonErrors, NoFormatField) {
  json j = doc();
  j.erase("format");
  EXPECT_EQ(error_of(j),
            "p.json is not an andweorc profile (no \"format\" field)");
  EXPECT_EQ(parse_profile("{}", "p.json").error,
            "p.json is not an andweorc profile (no \"format\" field)");
}

TEST(ProfileJsonErrors, WrongFormatTag) {
  json j = doc();
  j["format"] = "coz-profile";
  EXPECT_EQ(error_of(j),
            "p.json is not an andweorc profile (\"format\" is "
            "\"coz-profile\", not \"andweorc-profile\")");
  j["format"] = 1;
  EXPECT_EQ(error_of(j),
            "p.json is not an andweorc profile (\"format\" is the number 1, "
            "not \"andweorc-profile\")");
}

TEST(ProfileJsonErrors, NewerMajorVersionRejected) {
  json j = doc();
  j["version"] = "2.0";
  EXPECT_EQ(error_of(j),
            "p.json: profile format version 2.0 is newer than this andweorc "
            "understands (1.x)");
}

TEST(ProfileJsonErrors, OlderMajorVersionRejected) {
  json j = doc();
  j["version"] = "0.9";
  EXPECT_EQ(error_of(j),
            "p.json: profile format version 0.9 is older than this andweorc "
            "understands (1.x)");
}

TEST(ProfileJson, NewerMinorVersionWithUnknownFieldsAccepted) {
  json j = doc();
  j["version"] = "1.9";
  j["future_section"] = json::array({{{"line", "a.c:3"}, {"speedup", 0.5}}});
  j["experiments"][0]["cpu"] = 3;
  j["settings"]["mode"] = "x";
  j["run"]["hostname"] = "box";
  j["frames"][0]["column"] = 7;
  j["stacks"][0]["tids"] = json::array({1, 2});
  j["points"][0]["rate"] = 3.5;
  ReadResult r = parse_profile(j.dump(), "p.json");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(*r.profile, full_profile());
}

TEST(ProfileJsonErrors, MalformedVersion) {
  json j = doc();
  for (const char* v :
       {"1", "1.", ".0", "1.0.0", "one.zero", "", "-1.0", "1.x", " 1.0"}) {
    j["version"] = v;
    EXPECT_EQ(error_of(j).rfind("p.json: field 'version' must be a string "
                                "\"MAJOR.MINOR\", not \"",
                                0),
              0u)
        << v << ": " << error_of(j);
  }
  j["version"] = 1.0;
  EXPECT_EQ(error_of(j),
            "p.json: field 'version' must be a string \"MAJOR.MINOR\", not "
            "the number 1.0");
  j.erase("version");
  EXPECT_EQ(error_of(j), "p.json: missing field 'version'");
}

// ---- indices, types, ranges ----

TEST(ProfileJsonErrors, FrameIndexOutOfRange) {
  json j = doc();  // 5 frames
  j["stacks"][3]["frames"] = json::array({99});
  EXPECT_EQ(error_of(j),
            "p.json: field 'stacks[3].frames[0]' refers to frame 99 but there "
            "are 5 frames");
  j["stacks"][3]["frames"] = json::array({0, 5});
  EXPECT_EQ(error_of(j),
            "p.json: field 'stacks[3].frames[1]' refers to frame 5 but there "
            "are 5 frames");
  j["frames"] = json::array();
  EXPECT_EQ(error_of(j),
            "p.json: field 'stacks[0].frames[0]' refers to frame 0 but there "
            "are no frames");
}

TEST(ProfileJsonErrors, FrameIndexHugeOrNegative) {
  json j = doc();
  j["stacks"][0]["frames"][0] = 4294967296ull;  // would wrap in uint32
  EXPECT_EQ(error_of(j),
            "p.json: field 'stacks[0].frames[0]' refers to frame 4294967296 "
            "but there are 5 frames");
  j["stacks"][0]["frames"][0] = -1;
  EXPECT_EQ(error_of(j),
            "p.json: field 'stacks[0].frames[0]' must be a non-negative "
            "integer, not the number -1");
}

TEST(ProfileJsonErrors, MissingFields) {
  struct Case {
    json::json_pointer ptr;
    const char* field;
  };
  for (const Case& c :
       {Case{"/run"_json_pointer, "run"},
        Case{"/run/sampler"_json_pointer, "run.sampler"},
        Case{"/scope/source"_json_pointer, "scope.source"},
        Case{"/counts/samples"_json_pointer, "counts.samples"},
        Case{"/frames"_json_pointer, "frames"},
        Case{"/frames/2/in_scope"_json_pointer, "frames[2].in_scope"},
        Case{"/stacks/1/samples"_json_pointer, "stacks[1].samples"},
        Case{"/points/1/ends"_json_pointer, "points[1].ends"},
        Case{"/processes/0/pid"_json_pointer, "processes[0].pid"},
        Case{"/warnings"_json_pointer, "warnings"}}) {
    json j = doc();
    j[c.ptr.parent_pointer()].erase(c.ptr.back());
    EXPECT_EQ(error_of(j),
              std::string("p.json: missing field '") + c.field + "'");
  }
}

TEST(ProfileJsonErrors, WrongTypes) {
  struct Case {
    json::json_pointer ptr;
    json value;
    const char* message;
  };
  const Case cases[] = {
      {"/counts/samples"_json_pointer, "12",
       "field 'counts.samples' must be a non-negative integer, not a string"},
      {"/convergence/state"_json_pointer, "done",
       "field 'convergence.state' must be \"stable\", \"flat\" or "
       "\"running\", not \"done\""},
      {"/convergence/impact"_json_pointer, "0.5",
       "field 'convergence.impact' must be a number, not a string"},
      {"/counts/samples"_json_pointer, -3,
       "field 'counts.samples' must be a non-negative integer, not the "
       "number -3"},
      {"/counts/samples"_json_pointer, 1.5,
       "field 'counts.samples' must be a non-negative integer, not the "
       "number 1.5"},
      {"/counts/samples"_json_pointer, 1e30,
       "field 'counts.samples' must be a non-negative integer, not the "
       "number 1e+30"},
      {"/counts"_json_pointer, json::array(),
       "field 'counts' must be an object, not an array"},
      {"/frames/0"_json_pointer, "main",
       "field 'frames[0]' must be an object, not a string"},
      {"/frames/1/line"_json_pointer, -1,
       "field 'frames[1].line' must be between 0 and 2147483647, not -1"},
      {"/frames/1/line"_json_pointer, 2147483648ull,
       "field 'frames[1].line' must be between 0 and 2147483647, not "
       "2147483648"},
      {"/frames/1/in_scope"_json_pointer, 1,
       "field 'frames[1].in_scope' must be true or false, not the number 1"},
      {"/frames/1/function"_json_pointer, nullptr,
       "field 'frames[1].function' must be a string, not null"},
      {"/stacks/0/frames"_json_pointer, json::object(),
       "field 'stacks[0].frames' must be an array, not an object"},
      {"/stacks/0/frames/1"_json_pointer, "1",
       "field 'stacks[0].frames[1]' must be a non-negative integer, not a "
       "string"},
      {"/run/command/1"_json_pointer, 8080,
       "field 'run.command[1]' must be a string, not the number 8080"},
      {"/run/duration_s"_json_pointer, "2s",
       "field 'run.duration_s' must be a number, not a string"},
      {"/run/duration_s"_json_pointer, -0.5,
       "field 'run.duration_s' must be a non-negative number, not -0.5"},
      {"/run/exit_status"_json_pointer, 256,
       "field 'run.exit_status' must be between -1 and 255, not 256"},
      {"/run/exit_status"_json_pointer, -2,
       "field 'run.exit_status' must be between -1 and 255, not -2"},
      {"/points/0/kind"_json_pointer, "bandwidth",
       "field 'points[0].kind' must be \"throughput\" or \"latency\", not "
       "\"bandwidth\""},
      {"/processes/0/pid"_json_pointer, -5,
       "field 'processes[0].pid' must be between 0 and 2147483647, not -5"},
      {"/warnings"_json_pointer, "oops",
       "field 'warnings' must be an array, not a string"},
      {"/warnings/0"_json_pointer, json::array(),
       "field 'warnings[0]' must be a string, not an array"},
  };
  for (const Case& c : cases) {
    json j = doc();
    j[c.ptr] = c.value;
    EXPECT_EQ(error_of(j), std::string("p.json: ") + c.message)
        << c.ptr.to_string();
  }
}

TEST(ProfileJsonErrors, ReadsFromFileWithPathInMessage) {
  TestDir dir;
  json j = doc();
  j["stacks"][0]["frames"][0] = 99;
  spit(dir.file("bad.json"), j.dump());
  EXPECT_EQ(read_profile(dir.file("bad.json")).error,
            dir.file("bad.json") +
                ": field 'stacks[0].frames[0]' refers to frame 99 but there "
                "are 5 frames");
}

TEST(ProfileJson, DocumentedExampleIsAValidProfile) {
  std::string doc_text = slurp(ANDWEORC_FORMAT_DOC);
  size_t start = doc_text.find("```json\n");
  ASSERT_NE(start, std::string::npos) << "no ```json block in the docs";
  start += 8;
  size_t end = doc_text.find("```", start);
  ASSERT_NE(end, std::string::npos);
  ReadResult r =
      parse_profile(doc_text.substr(start, end - start), "the doc example");
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.profile->frames.size(), 3u);
  EXPECT_EQ(r.profile->stacks[1].frames, (std::vector<uint32_t>{2, 1}));
  EXPECT_EQ(r.profile->points[0].visits, 12500u);
}

}  // namespace
}  // namespace andweorc::profile
