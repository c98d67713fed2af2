// diff_fixtures.h: two hand-built profiles of one program, "before" and
// "after" a fix, with fixed numbers so diffs are reproducible byte for byte.
//
// BASE: hash.c:17 (hash_bytes) has impact ~0.8, table.c:91 (lookup) ~0.
// NEW:  three lines were inserted above the hashing line, now hash.c:20,
//       whose impact is ~0 (fixed); lookup's is ~0.6 (the new bottleneck);
//       server.c:120 appears with too few experiments.
#ifndef ANDWEORC_TESTS_COMPARE_DIFF_FIXTURES_H_
#define ANDWEORC_TESTS_COMPARE_DIFF_FIXTURES_H_

#include <cmath>
#include <string>

#include "compare/source_text.h"
#include "profile/profile.h"

namespace andweorc::compare::testing {

inline const std::string kHash = "/src/hash.c";
inline const std::string kTable = "/src/table.c";
inline const std::string kServer = "/src/server.c";

// Experiments on one line whose true impact is `k`: speed-ups 0..75% twice
// each, 1000 visits per 0.5 s at 0%, with a fixed jitter so fits have error.
inline void add_line(profile::Profile* p, const std::string& file, int line,
                     const std::string& fn, double k, int repeats = 2) {
  static const int jitter[] = {3, -2, 1, -4, 2, -1, 4, -3, 0, 2};
  int j = 0;
  for (int r = 0; r < repeats; ++r) {
    for (int pct : {0, 25, 50, 75}) {
      profile::Experiment e;
      e.file = file;
      e.line = line;
      e.function = fn;
      e.speedup_pct = pct;
      // Delays of x of the wall time: any impact up to 1 is plausible
      // (experiments/plausibility.h).
      e.delay_s = 0.5 * pct / (100.0 - pct);
      e.duration_s = 0.5 + e.delay_s;
      e.selected_samples = 20;
      e.pid = 7;
      double visits = 1000 / (1 - k * pct / 100.0) + 6 * jitter[j++ % 10];
      e.points.push_back({"requests", profile::PointKind::kThroughput,
                          static_cast<uint64_t>(std::lround(visits)), 0, 0, 0,
                          0});
      p->experiments.push_back(e);
    }
  }
}

inline profile::Profile base_profile() {
  profile::Profile p;
  p.run.command = {"./server"};
  p.run.start_time = "2024-05-01T12:00:00Z";
  p.run.duration_s = 20;
  p.run.sampler = "perf";
  p.run.sample_period_ns = 1000000;
  p.run.tool_version = "0.1.0";
  p.settings.enabled = true;
  p.processes = {{7, "/build/server", true}};
  p.threads = 2;
  p.frames = {{"hash_bytes", kHash, 17, "/build/server", false, true},
              {"lookup", kTable, 91, "/build/server", false, true}};
  p.stacks = {{{0, 1}, 700}, {{1}, 300}};
  p.samples = 1000;
  p.points = {{"requests", profile::PointKind::kThroughput, 40000, 0, 0}};
  add_line(&p, kHash, 17, "hash_bytes", 0.8);
  add_line(&p, kTable, 91, "lookup", 0.0);
  return p;
}

inline profile::Profile new_profile() {
  profile::Profile p = base_profile();
  p.run.start_time = "2024-05-02T12:00:00Z";
  p.frames = {{"hash_bytes", kHash, 20, "/build/server", false, true},
              {"lookup", kTable, 91, "/build/server", false, true},
              {"handle", kServer, 120, "/build/server", false, true}};
  p.stacks = {{{0, 1}, 100}, {{1}, 800}, {{2}, 100}};
  p.experiments.clear();
  add_line(&p, kHash, 20, "hash_bytes", 0.0);
  add_line(&p, kTable, 91, "lookup", 0.6);
  // One experiment only: not enough data.
  profile::Experiment few = p.experiments.back();
  few.file = kServer;
  few.line = 120;
  few.function = "handle";
  p.experiments.push_back(few);
  return p;
}

// The source files as each version had them: NEW inserted three lines.
inline void base_sources(SourceText* s) {
  std::vector<std::string> hash(30, "");
  hash[16] = "  h = h * 31 + *p;";
  std::vector<std::string> table(100, "");
  table[90] = "  return find(t, key);";
  s->set_file(kHash, hash);
  s->set_file(kTable, table);
}

inline void new_sources(SourceText* s) {
  std::vector<std::string> hash(30, "");
  hash[19] = "h = h * 31 +   *p;";  // blanks differ: still the same line
  std::vector<std::string> table(100, "");
  table[90] = "  return find(t, key);";
  std::vector<std::string> server(130, "");
  server[119] = "  handle(req);";
  s->set_file(kHash, hash);
  s->set_file(kTable, table);
  s->set_file(kServer, server);
}

}  // namespace andweorc::compare::testing

#endif  // ANDWEORC_TESTS_COMPARE_DIFF_FIXTURES_H_
