// live_run_test.cc: `andweorc run --live-json` on a bundled example
// (examples/pipeline): every line is one JSON object of the documented
// schema, the ranking appears while the program runs, and the final line
// is the written profile's answer (its experiments, its ranking as
// `andweorc report -f json` computes it). The page's /state carries the
// program's call stacks as flame graphs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "e2e/run_helpers.h"

namespace andweorc {
namespace {

using nlohmann::json;
using testing::run_command;
using testing::temp_dir;

class LiveRun : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir(); }
  void TearDown() override {
    if (tool_ > 0) {
      kill(tool_, SIGKILL);
      waitpid(tool_, nullptr, 0);
    }
    std::filesystem::remove_all(dir_);
  }
  std::string dir_;
  pid_t tool_ = 0;  // a tool started by the test, ended by TearDown
};

std::vector<json> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<json> out;
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

// The written profile's heaviest stack as `report -f folded` prints it,
// without its "[label ...]" frames (the live graph has no labels).
std::string heaviest_stack(const std::string& profile) {
  auto folded = run_command({ANDWEORC_BIN, "report", "-f", "folded", profile});
  EXPECT_EQ(folded.status, 0) << folded.err;
  std::istringstream lines(folded.out);
  std::string line, heaviest;
  uint64_t most = 0;
  while (std::getline(lines, line)) {
    size_t space = line.rfind(' ');
    uint64_t n = std::stoull(line.substr(space + 1));
    if (n > most) most = n, heaviest = line.substr(0, space);
  }
  while (heaviest.rfind("[label ", 0) == 0)
    heaviest.erase(0, heaviest.find(';') + 1);
  return heaviest;
}

// Whether a flame graph (report/flame_json.h) has a frame whose path from
// the outermost frame, joined by ';', is `path`.
bool has_path(const json& g, const std::string& path) {
  std::vector<std::string> above;  // the frames above the node being read
  for (const json& n : g["nodes"]) {
    above.resize(n[2].get<size_t>() - 1);
    above.push_back(g["names"][n[0].get<size_t>()]);
    std::string joined;
    for (const std::string& f : above)
      joined += (joined.empty() ? "" : ";") + f;
    if (joined == path) return true;
  }
  return false;
}

TEST_F(LiveRun, JsonLinesFollowTheRunAndEndWithTheProfilesAnswer) {
  std::string stream = dir_ + "/live.jsonl", prof = dir_ + "/profile.json";
  // 2.5 s: time for several one-per-second updates and a few dozen
  // experiments (pipeline runs about 15 a second here).
  auto r = run_command({ANDWEORC_BIN, "run", "-q", "--max-time", "2500ms",
                        "--live-json", stream, "-o", prof, "--", PIPELINE,
                        "items", "1000000000"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<json> lines;
  ASSERT_NO_THROW(lines = read_lines(stream));
  ASSERT_GE(lines.size(), 3u);
  double last_time = -1;
  size_t last_experiments = 0;
  bool ranked_while_running = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const json& l = lines[i];
    for (const char* key :
         {"schema", "kind", "time_s", "experiments", "experiments_per_s",
          "convergence", "ranking", "points", "dropped"})
      EXPECT_TRUE(l.contains(key)) << "line " << i << " lacks " << key;
    EXPECT_EQ(l["schema"], 1);
    EXPECT_EQ(l["kind"], i + 1 == lines.size() ? "final" : "update");
    EXPECT_GT(l["time_s"].get<double>(), last_time);
    last_time = l["time_s"];
    EXPECT_GE(l["experiments"].get<size_t>(), last_experiments);
    last_experiments = l["experiments"];
    EXPECT_EQ(l["dropped"], 0);  // a file never makes the stream drop
    // The flame graphs: in the first line, then once a window (10 s, longer
    // than this run), and in the final line.
    EXPECT_TRUE(l.contains("flame")) << "line " << i;
    EXPECT_EQ(l["flame"].is_null(), i > 0 && i + 1 < lines.size())
        << "line " << i;
    if (l["kind"] == "update")
      for (const json& p : l["ranking"]["points"])
        ranked_while_running = ranked_while_running || !p["lines"].empty();
  }
  EXPECT_TRUE(ranked_while_running);
  // The progress point's rate is seen while the program runs.
  const json& before_end = lines[lines.size() - 2];
  ASSERT_FALSE(before_end["points"].empty());
  EXPECT_EQ(before_end["points"][0]["name"], "item_written");
  EXPECT_GT(before_end["points"][0]["rate"].get<double>(), 0);

  const json& final = lines.back();
  std::ifstream in(prof);
  json written = json::parse(in);
  EXPECT_EQ(final["experiments"], written["experiments"].size());
  EXPECT_EQ(final["points"][0]["total"], written["points"][0]["visits"]);
  // The final line's whole-run flame graph counts the samples the flat
  // profile counts, and has the hot function's stacks.
  const json& flame = final["flame"]["total"];
  EXPECT_EQ(flame["samples"], final["samples"]["total_samples"]);
  EXPECT_GT(flame["samples"].get<uint64_t>(), 0u);
  bool hot = false;
  for (const json& n : flame["nodes"])
    hot = hot || (flame["names"][n[0].get<size_t>()] == "transform_item" &&
                  n[2].get<int>() >= 2);
  EXPECT_TRUE(hot) << flame.dump();
  // Its frames are the written profile's: the profile's heaviest stack
  // (`report -f folded`) is a path of the live graph.
  std::string heaviest = heaviest_stack(prof);
  EXPECT_TRUE(has_path(flame, heaviest)) << heaviest << "\n" << flame.dump();
  auto report = run_command({ANDWEORC_BIN, "report", "-f", "json", prof});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(final["ranking"], json::parse(report.out)["analysis"]);
}

// A flame graph of the state's JSON (report/flame_json.h) is a tree in
// preorder: depths step down one at a time, a frame's callees weigh no
// more than it, the outermost frames no more than the span.
void expect_tree(const json& g) {
  std::vector<std::pair<uint64_t, uint64_t>> open;  // (value, callees' sum)
  uint64_t outermost = 0;
  auto close_to = [&](size_t depth) {
    while (open.size() > depth) {
      EXPECT_LE(open.back().second, open.back().first) << g.dump();
      open.pop_back();
    }
  };
  for (const json& n : g["nodes"]) {
    ASSERT_LT(n[0].get<size_t>(), g["names"].size());
    uint64_t value = n[1];
    size_t depth = n[2];
    ASSERT_GE(depth, 1u);
    ASSERT_LE(depth, open.size() + 1) << g.dump();
    close_to(depth - 1);
    if (depth == 1)
      outermost += value;
    else
      open.back().second += value;
    open.emplace_back(value, 0);
  }
  close_to(0);
  EXPECT_LE(outermost, g["samples"].get<uint64_t>());
}

// The inclusive samples of a function's frames (no recursion here).
uint64_t samples_of(const json& g, const std::string& function) {
  uint64_t n = 0;
  for (const json& node : g["nodes"])
    if (g["names"][node[0].get<size_t>()] == function)
      n += node[1].get<uint64_t>();
  return n;
}

TEST_F(LiveRun, TheServedStateHasTheProgramsCallStacks) {
  tool_ = fork();
  if (tool_ == 0) {
    int err = open((dir_ + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(err, 2);
    execl(ANDWEORC_BIN, ANDWEORC_BIN, "run", "-q", "--live", "--max-time",
          "60s", "-o", (dir_ + "/profile.json").c_str(), "--", PIPELINE,
          "items", "1000000000", nullptr);
    _exit(126);
  }
  int port = 0;
  std::string token;
  ASSERT_TRUE(testing::wait_for_live_url(dir_ + "/err", &port, &token))
      << testing::read_file(dir_ + "/err");
  // A state of at least 2 s, with samples in both spans.
  httplib::Client c("127.0.0.1", port);
  json state;
  for (int i = 0; i < 600; ++i) {
    auto r = c.Get("/state?token=" + token);
    if (r && r->status == 200) {
      json j = json::parse(r->body, nullptr, false);
      if (j.is_object() && j.value("time_s", 0.0) >= 2 &&
          !j["flame"]["recent"]["nodes"].empty()) {
        state = j;
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(tool_, SIGINT);
  waitpid(tool_, nullptr, 0);
  tool_ = 0;
  ASSERT_TRUE(state.is_object()) << testing::read_file(dir_ + "/err");
  const json& f = state["flame"];
  EXPECT_EQ(f["window_s"], state["samples"]["window_s"]);
  EXPECT_EQ(f["min_share"], 0.005);
  for (const char* span : {"recent", "total"}) {
    SCOPED_TRACE(span);
    expect_tree(f[span]);
    EXPECT_EQ(f[span]["cut"], 0);  // a small program fits the node cap
  }
  // The same samples as the flat profile of the same state, by weight.
  EXPECT_EQ(f["recent"]["samples"], state["samples"]["recent_samples"]);
  EXPECT_EQ(f["total"]["samples"], state["samples"]["total_samples"]);
  EXPECT_LE(f["recent"]["samples"].get<uint64_t>(),
            f["total"]["samples"].get<uint64_t>());
  // The hot stage's stacks: transform_item under its thread's callers,
  // with 8 times the work of read_item per item.
  const json& total = f["total"];
  uint64_t transform = samples_of(total, "transform_item");
  EXPECT_GT(transform, 2 * samples_of(total, "read_item")) << total.dump();
  int deepest = 0;
  for (const json& n : total["nodes"])
    if (total["names"][n[0].get<size_t>()] == "transform_item")
      deepest = std::max(deepest, n[2].get<int>());
  EXPECT_GE(deepest, 3) << total.dump();
}

// Labelled calls go through the runtime's trampolines: the live graph
// hides them, as the written profile's stacks do.
TEST_F(LiveRun, LabelTrampolinesAreNotFramesOfTheFlameGraph) {
  std::string stream = dir_ + "/live.jsonl", prof = dir_ + "/profile.json";
  auto r = run_command({ANDWEORC_BIN, "run", "-q", "--live-json", stream, "-o",
                        prof, "--", LABEL_SERVER, "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<json> lines = read_lines(stream);
  ASSERT_FALSE(lines.empty());
  const json& flame = lines.back()["flame"]["total"];
  ASSERT_GT(flame["samples"].get<uint64_t>(), 0u);
  for (const json& name : flame["names"])
    EXPECT_EQ(name.get<std::string>().find("andweorc_label_trampoline"),
              std::string::npos)
        << name;
  EXPECT_GT(samples_of(flame, "search_work"), 0u) << flame.dump();
  std::string heaviest = heaviest_stack(prof);
  EXPECT_TRUE(has_path(flame, heaviest)) << heaviest << "\n" << flame.dump();
}

TEST_F(LiveRun, ANonLoopbackAddressIsRefusedBeforeAnythingRuns) {
  std::string marker = dir_ + "/ran";
  auto r = run_command({ANDWEORC_BIN, "run", "--live=0.0.0.0:8080", "-o",
                        dir_ + "/p.json", "--", "/usr/bin/touch", marker});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("loopback"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/p.json"));
}

}  // namespace
}  // namespace andweorc
