// fake_program.h: a simulated program for the planner's tests: regions with
// known impacts and sample shares, a progress point whose rate drifts with
// (fake) time, and deterministic noise. No clock, no runtime.
#ifndef ANDWEORC_TESTS_COORDINATOR_FAKE_PROGRAM_H_
#define ANDWEORC_TESTS_COORDINATOR_FAKE_PROGRAM_H_

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "planner/experiment_planner.h"

namespace andweorc::planner::testing {

struct FakeRegion {
  std::string key;
  double impact;     // true program speed-up per unit of speed-up
  uint64_t samples;  // share of the samples (relative)
  // Inserted delay per unit of speed-up, as a share of the experiment
  // (D/T = delay_share * s): the virtual time the point is counted over
  // shrinks by it. 0: delays not modelled (virtual time = length).
  double delay_share = 0;
  // Carry-over: the experiment right after an s% one on this region runs
  // faster by carry_over * s (a backlog the sped-up half left behind,
  // worked off in the next one: the known-answer spin's consumer).
  double carry_over = 0;
};

class FakeProgram {
 public:
  FakeProgram(std::vector<FakeRegion> regions, double rate_per_s,
              double noise = 0.01, uint64_t seed = 1)
      : regions_(std::move(regions)),
        rate_(rate_per_s),
        noise_(noise),
        rng_(seed) {}

  // The program slows down by this fraction per second of run time (a
  // growing database, a neighbour's build): slow drift.
  double drift_per_s = 0;
  // Makes the point a latency point (Little's law: in flight = rate x
  // latency, constant).
  bool latency = false;
  std::string point = "done";
  // Saturation: impacts apply only up to this speed-up (a curve that
  // flattens); 1 = linear.
  double saturate_at = 1.0;
  // Visits are a Poisson count over the virtual time (else the exact
  // number): with delay_share, a sped-up half counts fewer of them, so
  // its count is noisier, as in a real program.
  bool poisson_counts = false;
  // Noise from an experiment's edges (work that crosses them, delays still
  // owed): its standard deviation is this many seconds over the length, so
  // it weighs less in a longer experiment (P12). 0: none.
  double edge_noise_s = 0;
  // Coarse to fine: the function holding each line (candidates' parents).
  std::map<std::string, std::string> parents;

  std::vector<Candidate> candidates() const {
    std::vector<Candidate> c;
    for (const FakeRegion& r : regions_) {
      c.push_back({r.key, r.samples, {}});
      auto p = parents.find(r.key);
      if (p != parents.end()) c.back().parents = {p->second};
    }
    return c;
  }

  // Runs `plan` from the current fake time; advances it.
  Observation run(const Plan& plan) {
    // What the last experiment left behind moves this one; this one's is
    // for the next (nothing when its region is not one of ours).
    double impact = 0, delay_share = 0, carry = carry_;
    carry_ = 0;
    for (const FakeRegion& r : regions_)
      if (r.key == plan.region) {
        impact = r.impact, delay_share = r.delay_share;
        carry_ = r.carry_over * plan.speedup_pct / 100.0;
      }
    double s = std::min(plan.speedup_pct / 100.0, saturate_at);
    double len = double(plan.length_ns) / 1e9;
    double virtual_len =
        len * std::max(0.05, 1 - delay_share * plan.speedup_pct / 100.0);
    double slow = 1 + drift_per_s * now_s_;
    std::normal_distribution<double> n(0, noise_ + edge_noise_s / len);
    // Program speed-up impact * s: the period shrinks by that fraction.
    double period =
        slow * (1 - impact * s) * (1 - carry) * (1 + n(rng_)) / rate_;
    Observation o;
    o.region = plan.region;
    o.parents = plan.parents;
    o.stream = 1;
    o.speedup_pct = plan.speedup_pct;
    o.virtual_s = virtual_len;
    PointCount p;
    p.name = point;
    p.latency = latency;
    if (!latency) {
      double mean = virtual_len / period;
      p.events = poisson_counts
                     ? uint64_t(std::poisson_distribution<int64_t>(mean)(rng_))
                     : uint64_t(std::llround(mean));
    } else {
      // Arrivals at `rate_`; the latency (in flight / arrival rate, Little's
      // law) is proportional to `period`.
      p.events = uint64_t(std::llround(virtual_len * rate_));
      int64_t in_flight = int64_t(std::llround(period * rate_ * 1e5));
      p.in_flight_start = p.in_flight_end = in_flight;
    }
    o.points.push_back(p);
    now_s_ += len + 0.01;
    return o;
  }

  double now_s() const { return now_s_; }

 private:
  std::vector<FakeRegion> regions_;
  double rate_;
  double noise_;
  std::mt19937_64 rng_;
  double now_s_ = 0;
  double carry_ = 0;  // what the last experiment left for the next
};

// Plans and runs experiments until the planner's answer settles or `max`
// ran; returns how many ran.
inline int run_until_settled(ExperimentPlanner* p, FakeProgram* prog, int max) {
  int n = 0;
  while (n < max && p->tracker().status().state == ConvergenceState::kRunning) {
    std::optional<Plan> plan = p->next(prog->candidates());
    if (!plan) break;
    p->record(prog->run(*plan));
    ++n;
  }
  return n;
}

}  // namespace andweorc::planner::testing

#endif  // ANDWEORC_TESTS_COORDINATOR_FAKE_PROGRAM_H_
