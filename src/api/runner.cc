// runner.cc: andweorc::Runner (runner.h): causal experiments driven by the
// program itself instead of the coordinator thread `andweorc run` starts.
//
// The schedule is the one of `andweorc run` (coordinator/
// experiment_planner.h: paired 0%/s% blocks on the most-sampled lines,
// successive elimination), with the configured speed-ups as its levels and
// max_lines as its number of candidates, run by the coordinator's
// ExperimentRunner after a warm-up. It stops when the answer is stable or
// flat (convergence.h), or after repetitions x max_lines x speedups blocks,
// whichever comes first. Experiments are recorded like any other, so the
// profile and its analysis are exactly those of `andweorc run`;
// RunnerConfig::granularity is `run --granularity` (line, function, auto).
#include "andweorc/runner.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <random>

#include "api/results_data.h"
#include "api/self_profile.h"
#include "coordinator/experiment_runner.h"
#include "coordinator/line_catalog.h"
#include "experiments/analysis.h"
#include "runtime/address_table.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "symbols/line_cache.h"

namespace andweorc {
namespace {

using coordinator::LineCatalog;

// One Runner at a time drives the delay engine.
std::mutex g_run_mutex;
// Built by the first run; the signal handler reads its table until exit.
LineCatalog* g_catalog = nullptr;
std::vector<std::string> g_catalog_notes;

struct Job {
  const RunnerConfig* config = nullptr;
  std::string point;
  std::string error;  // set when no experiment could run
  int experiments = 0;
};

void sleep_ns(uint64_t ns) {
  timespec ts{time_t(ns / 1000000000u), long(ns % 1000000000u)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

const LineCatalog* catalog(const RunnerConfig& c, std::string* error) {
  if (g_catalog == nullptr) {
    symbols::ScopeMatcher scope(
        c.binary_scope.empty() ? symbols::default_binary_scope()
                               : c.binary_scope,
        c.source_scope.empty() ? symbols::default_source_scope()
                               : c.source_scope);
    // The line cache `andweorc run` names, else the user's own (a program
    // that runs the Runner itself reads its DWARF once per build too).
    const char* named = std::getenv("ANDWEORC_LINE_CACHE");
    std::string cache = named ? named : symbols::default_cache_dir();
    g_catalog = LineCatalog::build(scope, cache, &g_catalog_notes).release();
    runtime::publish_address_table(g_catalog->table());
  }
  if (g_catalog->size() == 0) {
    *error =
        "no in-scope source lines with code: build with -g, and check "
        "binary_scope/source_scope";
    for (const auto& n : g_catalog_notes) *error += "; " + n;
    return nullptr;
  }
  return g_catalog;
}

bool point_reached(const std::string& point) {
  coordinator::PointSnapshot snap = coordinator::snapshot_points();
  auto it = snap.find(point);
  if (it == snap.end()) return false;
  return it->second.latency ? it->second.ends > 0 : it->second.visits > 0;
}

void run_schedule(Job* job) {
  const RunnerConfig& c = *job->config;
  const LineCatalog* cat = catalog(c, &job->error);
  if (cat == nullptr) return;
  // Samples are attributed to lines from the moment the table exists; let
  // some accumulate (and let the workload reach its point).
  auto warmup = uint64_t(std::max<int64_t>(c.warmup.count(), 0));
  uint64_t waited = 0;
  sleep_ns(warmup);
  while (!point_reached(job->point) &&
         waited < std::max<uint64_t>(warmup, 1000000000ull)) {
    sleep_ns(20000000);
    waited += 20000000;
  }
  if (!point_reached(job->point)) {
    job->error = "progress point '" + job->point +
                 "' was never reached: is the workload running, and is the "
                 "name right?";
    return;
  }
  uint64_t sampled = 0;
  for (uint32_t i = 0; i < cat->size(); ++i) sampled += cat->line_samples(i);
  if (sampled == 0) {
    job->error =
        "no samples in in-scope lines yet: lengthen the warm-up, or check "
        "that the workload's threads are profiled (created after init(), or "
        "calling start_profiling())";
    return;
  }
  uint64_t seed = c.seed != 0 ? c.seed : runtime::monotonic_ns();
  coordinator::CoordinatorConfig cc;
  cc.experiments = true;
  cc.experiment_ns = uint64_t(c.round_duration.count());
  cc.seed = seed;
  cc.period_ns = runtime::config().period_ns;
  cc.function_granularity = c.granularity == "function";
  cc.auto_granularity = c.granularity == "auto";
  cc.adaptive_granularity = c.granularity == "adaptive";
  planner::PlannerOptions po =
      coordinator::ExperimentRunner::planner_options(cc);
  po.levels.clear();
  for (int s : c.speedups)
    if (s > 0) po.levels.push_back(s);
  po.max_regions = size_t(c.max_lines);
  // round_duration is the length the caller asked for: a floor, not only a
  // start (a program with a fast point would otherwise get 50 ms rounds).
  po.min_length_ns = cc.experiment_ns;
  planner::ExperimentPlanner plan(po, seed);
  coordinator::ExperimentRunner runner(cc, *cat, runtime::delay_engine());
  // Each sped-up experiment of the budget comes with its paired baseline.
  int budget = 2 * c.repetitions * c.max_lines * int(po.levels.size());
  const bool never_stop = false;
  job->experiments = runner.run_planned(&plan, &never_stop, budget, true);
}

void* job_main(void* p) {
  run_schedule(static_cast<Job*>(p));
  return nullptr;
}

// Experiments run in a thread of our own, made like the coordinator's: with
// the real pthread_create (never profiled, never delayed) and every signal
// blocked. The caller waits for it without spending CPU time.
bool run_unprofiled(Job* job) {
  const runtime::RealFunctions& real = runtime::real();
  sigset_t all, old;
  sigfillset(&all);
  real.pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  int rc = real.pthread_create(&thread, nullptr, job_main, job);
  real.pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (rc != 0) return false;
  pthread_join(thread, nullptr);
  return true;
}

std::string check_config(const RunnerConfig& c) {
  if (c.round_duration < std::chrono::milliseconds(1))
    return "round_duration must be at least 1 ms";
  if (c.baseline_rounds < 0 || c.max_lines < 1 || c.repetitions < 1)
    return "baseline_rounds must be >= 0, max_lines and repetitions >= 1";
  if (c.granularity != "line" && c.granularity != "function" &&
      c.granularity != "auto" && c.granularity != "adaptive")
    return "granularity must be \"line\", \"function\", \"auto\" or "
           "\"adaptive\"";
  if (c.speedups.empty()) return "speedups must not be empty";
  if (std::none_of(c.speedups.begin(), c.speedups.end(),
                   [](int s) { return s > 0; }))
    return "speedups must hold a nonzero speed-up";
  for (int s : c.speedups)
    if (s < 0 || s > 100) return "speedups are percentages, 0..100";
  return "";
}

}  // namespace

Runner::Runner() = default;
Runner::Runner(RunnerConfig config) : config_(std::move(config)) {}

Results Runner::run() { return run(config_.progress_point); }

Results Runner::run(const std::string& point) {
  auto start = std::chrono::steady_clock::now();
  auto data = std::make_shared<Results::Data>();
  data->point = point;
  Results results;
  results.data_ = data;
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  if (point.empty()) {
    data->error = "no progress point: pass one to run() or set progress_point";
    return results;
  }
  if (std::string bad = check_config(config_); !bad.empty()) {
    data->error = "invalid Runner configuration: " + bad;
    return results;
  }
  if (!runtime::runtime_active()) {
    data->error =
        "profiling is off: set ANDWEORC_ENABLED=1 or call "
        "andweorc::init(Options{.enabled = true}) first";
    return results;
  }
  if (runtime::runtime_started_by_tool() &&
      coordinator::config_from_environment().experiments) {
    data->error =
        "`andweorc run` is running experiments in this process; use "
        "`andweorc run --no-experiments` to let the Runner run them";
    return results;
  }
  std::lock_guard<std::mutex> lock(g_run_mutex);
  Job job;
  job.config = &config_;
  job.point = point;
  if (!run_unprofiled(&job)) {
    data->error = "cannot start the experiment thread";
    return results;
  }
  data->error = job.error;
  api::SelfProfileOptions so{config_.binary_scope, config_.source_scope,
                             double(config_.round_duration.count()) / 1e9,
                             config_.seed};
  std::string error;
  if (!api::self_profile(so, &data->profile, &error) && data->error.empty())
    data->error = error;
  // As `andweorc run` records them (profile-format.md, settings).
  data->profile.settings.granularity =
      config_.granularity == "function" ? "function" : "line";
  data->profile.settings.coarse_to_fine = config_.granularity == "auto";
  if (config_.granularity == "adaptive")
    for (const auto& e : data->profile.experiments)
      if (e.granularity == "function")
        data->profile.settings.coarse_to_fine = true;
  api::fill_impacts(data.get());
  data->seconds = seconds();
  return results;
}

}  // namespace andweorc
