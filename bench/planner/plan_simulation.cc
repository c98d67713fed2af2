// plan_simulation: experiments to a stable answer, and how often the answer
// is right, for the planner and stopping rule on simulated programs
// (tests/planner/fake_program.h: known impacts, per-experiment noise, fake
// time), with the rules of docs/causal-analysis.md switched on in turn:
//   stop-34  R3 by non-overlapping intervals, R4 by 20 experiments
//   +R4-time R4: 20 experiments or 1 s of them (at least 6)
//   +R3-diff R3 also by Welch's test of the difference (the default)
// Deterministic: the same seeds give the same table on any machine.
//
// Usage: bench_plan_simulation [seeds]   (default 100)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "fake_program.h"
#include "planner/experiment_planner.h"

namespace {

using andweorc::planner::ConvergenceState;
using andweorc::planner::ExperimentPlanner;
using andweorc::planner::PlannerOptions;
using andweorc::planner::testing::FakeProgram;
using andweorc::planner::testing::FakeRegion;

struct Shape {
  const char* name;
  std::vector<FakeRegion> regions;
  std::map<std::string, std::string> parent;  // line -> function
  double noise;                               // per experiment
  std::vector<std::string> right;             // leaders that are right
};

std::vector<Shape> shapes() {
  const std::string t = "function\ttransmit\tm.c";
  Shape mc{"memcached-like",
           {{t, 0.4, 900},
            {"function\tassoc_find\tm.c", 0.1, 700},
            {"function\tresp_finish\tm.c", 0.12, 600},
            {"function\tdrive\tm.c", 0.05, 800},
            {"function\tlru\tm.c", 0.0, 500},
            {"function\tresp_start\tm.c", 0.0, 400},
            {"function\tpull\tm.c", 0.0, 300},
            {"function\tupdate\tm.c", 0.05, 300},
            {"line\tm.c\t2708", 0.3, 500},
            {"line\tm.c\t2740", 0.0, 300},
            {"line\tm.c\t2750", 0.05, 100}},
           {},
           0.08,
           {t, "line\tm.c\t2708"}};
  for (const char* l :
       {"line\tm.c\t2708", "line\tm.c\t2740", "line\tm.c\t2750"})
    mc.parent[l] = t;
  return {
      mc,
      {"three-lines",
       {{"line\ta\t1", 0.5, 500},
        {"line\ta\t2", 0.25, 300},
        {"line\ta\t3", 0.0, 300}},
       {},
       0.05,
       {"line\ta\t1"}},
      {"0.4-vs-0.3",
       {{"line\ta\t1", 0.4, 500},
        {"line\ta\t2", 0.3, 500},
        {"line\ta\t3", 0.0, 300},
        {"line\ta\t4", 0.0, 300},
        {"line\ta\t5", 0.05, 300},
        {"line\ta\t6", 0.1, 300}},
       {},
       0.05,
       {"line\ta\t1"}},
      {"close-race",
       {{"line\ta\t1", 0.35, 500},
        {"line\ta\t2", 0.3, 500},
        {"line\ta\t3", 0.25, 300},
        {"line\ta\t4", 0.0, 300}},
       {},
       0.05,
       {"line\ta\t1"}},
      {"eight-noisy",
       {{"line\ta\t1", 0.4, 500},
        {"line\ta\t2", 0.1, 500},
        {"line\ta\t3", 0.1, 300},
        {"line\ta\t4", 0.0, 300},
        {"line\ta\t5", 0.05, 300},
        {"line\ta\t6", 0.0, 300},
        {"line\ta\t7", 0.15, 300},
        {"line\ta\t8", 0.0, 300}},
       {},
       0.1,
       {"line\ta\t1"}},
  };
}

struct Mode {
  const char* name;
  bool r4_time;
  bool r3_difference;
};

}  // namespace

int main(int argc, char** argv) {
  const int seeds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100;
  const Mode modes[] = {{"stop-34", false, false},
                        {"+R4-time", true, false},
                        {"+R3-diff", true, true}};
  std::printf(
      "%-15s %-9s %7s %5s %5s %7s %6s   (%d seeds, experiments of 200 ms)\n",
      "shape", "rules", "median", "p25", "p75", "stable", "right", seeds);
  for (const Shape& shape : shapes()) {
    for (const Mode& mode : modes) {
      std::vector<int> n;
      int stable = 0, right = 0;
      for (int seed = 1; seed <= seeds; ++seed) {
        PlannerOptions o;
        if (!mode.r4_time) o.convergence.stable_seconds = 1e18;
        o.convergence.eliminate_by_difference = mode.r3_difference;
        ExperimentPlanner p(o, uint64_t(seed));
        FakeProgram prog(shape.regions, 2000, shape.noise,
                         uint64_t(seed) * 7919);
        int k = 0;
        for (; k < 2000; ++k) {
          if (p.tracker().status().state != ConvergenceState::kRunning) break;
          std::vector<andweorc::planner::Candidate> c = prog.candidates();
          for (auto& x : c) {
            auto it = shape.parent.find(x.region);
            if (it != shape.parent.end()) x.parents = {it->second};
          }
          std::optional<andweorc::planner::Plan> plan = p.next(c);
          if (!plan) break;
          p.record(prog.run(*plan));
        }
        n.push_back(k);
        const auto& s = p.tracker().status();
        if (s.state == ConvergenceState::kStable) ++stable;
        if (std::find(shape.right.begin(), shape.right.end(), s.leader) !=
            shape.right.end())
          ++right;
      }
      std::sort(n.begin(), n.end());
      std::printf("%-15s %-9s %7d %5d %5d %7d %6d\n", shape.name, mode.name,
                  n[n.size() / 2], n[n.size() / 4], n[3 * n.size() / 4], stable,
                  right);
    }
  }
  return 0;
}
