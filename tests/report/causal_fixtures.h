// causal_fixtures.h: hand-built profiles with experiments for report tests.
// Every number is fixed, so the reports are reproducible byte for byte.
#ifndef ANDWEORC_TESTS_REPORT_CAUSAL_FIXTURES_H_
#define ANDWEORC_TESTS_REPORT_CAUSAL_FIXTURES_H_

#include <algorithm>
#include <string>

#include "profile/profile.h"

namespace andweorc::report::testing {

// An experiment on `file`:`line` with throughput point "requests" at
// `visits` visits in `virtual_s` seconds, and latency point "query" with
// `arrivals` arrivals and `in_flight` transactions in flight at both ends
// (no "query" entry when arrivals < 0).
inline profile::Experiment exp(const std::string& file, int line,
                               const std::string& fn, int pct, double virtual_s,
                               uint64_t visits, int64_t arrivals = -1,
                               int64_t in_flight = 0, uint64_t samples = 20) {
  profile::Experiment e;
  e.file = file;
  e.line = line;
  e.function = fn;
  e.speedup_pct = pct;
  // The delays take x of the wall time, as when the line is all of it: any
  // impact up to 1 is then plausible (experiments/plausibility.h).
  double x = std::min(pct, 90) / 100.0;
  e.delay_s = virtual_s * x / (1 - x);
  e.duration_s = virtual_s + e.delay_s;
  e.selected_samples = samples;
  e.pid = 4242;
  e.points.push_back(
      {"requests", profile::PointKind::kThroughput, visits, 0, 0, 0, 0});
  if (arrivals >= 0) {
    e.points.push_back({"query", profile::PointKind::kLatency, 0,
                        static_cast<uint64_t>(arrivals),
                        static_cast<uint64_t>(arrivals), in_flight, in_flight});
  }
  return e;
}

// A server run with experiments: hash.c:17 matters (impact about 0.8),
// table.c:91 is noise, server.c:120 has too few experiments, log.c:12 was
// never sampled while sped up; the latency point "query" halves its latency
// when hash.c:17 is sped up by 50%.
inline profile::Profile causal_profile() {
  profile::Profile p;
  p.run.command = {"./server", "--threads", "4"};
  p.run.start_time = "2024-05-01T12:00:00Z";
  p.run.duration_s = 30;
  p.run.sampler = "perf";
  p.run.sample_period_ns = 1000000;
  p.run.tool_version = "0.2.0";
  p.settings = {true, "", -1, false, 0.5, 7, "line"};
  p.scope.binary = {"MAIN"};
  p.processes = {{4242, "/home/dev/proj/build/server", true}};
  p.threads = 5;
  p.samples = 1000;
  const std::string src = "/home/dev/proj/src/";
  const std::string bin = "/home/dev/proj/build/server";
  p.frames = {
      {"hash_bytes", src + "hash.c", 17, bin, false, true},
      {"lookup", src + "table.c", 91, bin, false, true},
      {"handle_request", src + "server.c", 120, bin, false, true},
  };
  p.stacks = {{{0, 1, 2}, 600}, {{1, 2}, 300}, {{2}, 100}};
  p.points = {{"requests", profile::PointKind::kThroughput, 150000, 0, 0},
              {"query", profile::PointKind::kLatency, 0, 30000, 30000}};
  const std::string h = src + "hash.c";
  const std::string t = src + "table.c";
  const std::string s = src + "server.c";
  const std::string l = src + "log.c";
  // Baseline: 1 ms per request; query: 1000 arrivals/s, 10 in flight.
  p.experiments = {
      exp(h, 17, "hash_bytes", 0, 0.5, 500, 500, 10),
      exp(h, 17, "hash_bytes", 0, 0.5, 503, 500, 10),
      exp(h, 17, "hash_bytes", 25, 0.5, 625, 500, 8),
      exp(h, 17, "hash_bytes", 50, 0.5, 830, 500, 5),
      exp(h, 17, "hash_bytes", 50, 0.5, 835, 500, 5),
      exp(h, 17, "hash_bytes", 75, 0.5, 1245, 500, 3),
      exp(t, 91, "lookup", 0, 0.5, 498),
      exp(t, 91, "lookup", 0, 0.5, 505),
      exp(t, 91, "lookup", 25, 0.5, 490),
      exp(t, 91, "lookup", 50, 0.5, 515),
      exp(t, 91, "lookup", 75, 0.5, 497),
      exp(s, 120, "handle_request", 0, 0.5, 501),
      exp(s, 120, "handle_request", 50, 0.5, 560),
      exp(l, 12, "write_log", 25, 0.5, 500, -1, 0, 0),
      exp(l, 12, "write_log", 50, 0.5, 499, -1, 0, 0),
      exp(l, 12, "write_log", 75, 0.5, 502, -1, 0, 0),
  };
  return p;
}

}  // namespace andweorc::report::testing

#endif  // ANDWEORC_TESTS_REPORT_CAUSAL_FIXTURES_H_
