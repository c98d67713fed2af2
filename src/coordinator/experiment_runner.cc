// experiment_runner.cc: see experiment_runner.h.
#include "coordinator/experiment_runner.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "andweorc/andweorc.h"
#include "planner/region_key.h"
#include "runtime/address_table.h"
#include "runtime/progress_points.h"
#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/sample_period.h"
#include "runtime/shared_tree.h"
#include "runtime/signal_safe.h"
#include "runtime/timer_interval.h"

namespace andweorc::coordinator {
namespace {

constexpr uint64_t kMaxLengthNs = 4000000000ull;
// End-to-end runs hold one experiment each and cannot be paired: as Coz,
// 30% of them are 0% baselines.
constexpr int kZeroSpeedupPercent = 30;
// The coordinator's lease on a running experiment (delay_engine.h
// expires_ns), renewed every sleep slice: if its process is killed, the
// other processes of the tree stop inserting delays within this time.
constexpr uint64_t kLeaseNs = 1000000000ull;
// How long the coordinator sleeps at a time: every wake-up takes a core
// from the program for a moment (issue 11), so it wakes only to renew the
// lease (4 times per lease), or, with the live page's controls, often
// enough to take a command within 10 ms. A stop wakes it at once
// (wake_sleeping_runners).
constexpr uint64_t kSliceNs = kLeaseNs / 4;
constexpr uint64_t kControlSliceNs = 10000000;
// Bumped by wake_sleeping_runners() after a stop flag was set; runners
// sleep on it (futex), so a stop does not wait for the end of a slice.
uint32_t g_wake_word = 0;

// The interval the CPU-time timer's samples are assumed to come at until
// it is measured (timer_interval.h): the scheduler tick at HZ=250, as here
// (../shared/platform-notes.md).
constexpr uint64_t kTimerTickNs = 4000000;
// Timer signals counted before their mean interval replaces the
// assumption: a few threads' first second.
constexpr uint64_t kTimerSignalsToMeasure = 500;

// P5's floor for this configuration: 50 sample intervals, the timer's
// measured (or, until then, assumed) when it is the sampler.
uint64_t shortest_experiment_ns(const CoordinatorConfig& c) {
  uint64_t tick = 0;
  if (runtime::sampler_kind() == raw::kSamplerTimer) {
    double periods = runtime::timer_intervals_mean(runtime::timer_intervals(),
                                                   kTimerSignalsToMeasure);
    tick = periods > 0 ? uint64_t(periods * double(c.period_ns)) : kTimerTickNs;
  }
  return planner::shortest_experiment_ns(c.period_ns, tick, c.experiment_ns);
}

}  // namespace

PointSnapshot snapshot_points(SplitPoints split) {
  // A process tree: fresh totals from every other process first (they
  // answer within microseconds; one killed meanwhile is waited for 2 ms).
  runtime::TreeSegment* tree = runtime::tree();
  if (tree != nullptr)
    runtime::tree_request_totals(tree, int32_t(getpid()), 2000000);
  auto add = [](PointState& p, int kind, uint64_t n) {
    if (kind == ANDWEORC_KIND_THROUGHPUT) p.visits += n;
    if (kind == ANDWEORC_KIND_BEGIN) p.begins += n, p.latency = true;
    if (kind == ANDWEORC_KIND_END) p.ends += n, p.latency = true;
  };
  static const std::string own_exe = [] {
    char exe[runtime::kTreeExeMax];
    runtime::tree_exe_name(exe);
    return std::string(exe);
  }();
  int32_t me = int32_t(getpid());
  runtime::PointTotal totals[ANDWEORC_MAX_COUNTERS];
  int n = std::min(runtime::points_totals(totals, ANDWEORC_MAX_COUNTERS),
                   ANDWEORC_MAX_COUNTERS);
  PointSnapshot snap;
  for (int i = 0; i < n; ++i)
    add(snap[runtime::split_point_name(
            std::string(totals[i].name, totals[i].name_len), split, me,
            own_exe.c_str())],
        totals[i].kind, totals[i].total);
  // A process tree: every other process's latest published totals (ours
  // are the fresh ones above). A point only other processes know counts
  // too: in a prefork server, the workers count the requests.
  if (runtime::TreeSegment* t = tree) {
    for (int i = 0; i < runtime::kTreePoints; ++i) {
      const runtime::TreePoint& tp = t->points[i];
      if (__atomic_load_n(&tp.state, __ATOMIC_ACQUIRE) != 2) continue;
      std::string name(tp.name, tp.name_len);
      if (split == SplitPoints::kNone) {
        add(snap[name], tp.kind, runtime::tree_total_except(*t, i, me));
        continue;
      }
      for (const runtime::TreeProcess& p : t->processes) {
        int32_t pid = __atomic_load_n(&p.pid, __ATOMIC_ACQUIRE);
        if (pid == 0 || pid == me) continue;
        uint64_t total = __atomic_load_n(&p.totals[i], __ATOMIC_RELAXED);
        if (total == 0) continue;  // a process without this point
        const char* exe =
            __atomic_load_n(&p.named, __ATOMIC_ACQUIRE) ? p.exe : "";
        add(snap[runtime::split_point_name(name, split, pid, exe)], tp.kind,
            total);
      }
    }
  }
  return snap;
}

ExperimentRunner::ExperimentRunner(const CoordinatorConfig& config,
                                   const LineCatalog& catalog,
                                   runtime::DelayEngine& engine)
    : config_(config),
      catalog_(catalog),
      engine_(engine),
      rng_(config.seed != 0 ? config.seed : runtime::monotonic_ns()) {}

planner::PlannerOptions ExperimentRunner::planner_options(
    const CoordinatorConfig& c) {
  planner::PlannerOptions o;
  o.fixed_speedup = c.fixed_speedup;
  o.initial_length_ns = c.experiment_ns;
  o.min_length_ns = shortest_experiment_ns(c);
  o.max_length_ns = kMaxLengthNs;
  o.leader_allocation = c.leader_allocation;
  o.virtual_floor = c.virtual_floor;
  o.measured_length = c.measured_length;
  o.convergence.rank_depth = c.rank_depth;
  if (!c.speedup_levels.empty()) o.levels = c.speedup_levels;
  o.mirrored_pairs = c.mirrored_pairs;
  return o;
}

std::string ExperimentRunner::region_key(uint32_t selection,
                                         bool by_function) const {
  if (by_function) {
    const FunctionInfo& f = catalog_.function(selection);
    return planner::function_region_key(f.name,
                                        catalog_.line(f.first_line).file);
  }
  const LineInfo& l = catalog_.line(selection);
  return planner::line_region_key(l.file, l.line);
}

const std::vector<std::vector<uint32_t>>& ExperimentRunner::line_functions() {
  if (line_functions_.empty()) {
    line_functions_.resize(catalog_.size());
    const runtime::AddressTable& t = *catalog_.table();
    for (size_t i = 0; i < t.range_count; ++i) {
      const runtime::AddressRange& r = t.ranges[i];
      if (r.line >= line_functions_.size()) continue;
      std::vector<uint32_t>& f = line_functions_[r.line];
      if (std::find(f.begin(), f.end(), r.function) == f.end())
        f.push_back(r.function);
    }
  }
  return line_functions_;
}

std::vector<planner::Candidate> ExperimentRunner::candidates() {
  if (pinned_) {
    // A live pin: only its selections, as one region per key.
    std::vector<planner::Candidate> out;
    for (uint32_t id : pin_ids_) {
      std::string key = region_key(id, pin_by_function_);
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const auto& c) { return c.region == key; });
      if (it == out.end()) {
        out.push_back(planner::Candidate{});
        it = out.end() - 1;
        it->region = key;
        region_ids_[key] = id;
      }
      // A pinned selection is a candidate before it has samples.
      it->samples += 1 + (pin_by_function_ ? catalog_.function_samples(id)
                                           : catalog_.line_samples(id));
    }
    return out;
  }
  // --fixed-line names lines: auto plans them as lines.
  if (!functions_first() || !fixed_lines_.empty())
    return tier(config_.function_granularity);
  std::vector<planner::Candidate> out = tier(true);
  std::vector<uint32_t> line_ids;
  std::vector<planner::Candidate> lines = tier(false, &line_ids);
  const auto& lf = line_functions();
  for (size_t k = 0; k < lines.size(); ++k) {
    planner::Candidate& c = lines[k];
    uint32_t id = line_ids[k];
    if (id < lf.size())
      for (uint32_t f : lf[id]) c.parents.push_back(key_of(f, true));
    // A line with no function is a top-tier region of its own.
    out.push_back(std::move(c));
  }
  return out;
}

bool ExperimentRunner::functions_first() {
  if (config_.auto_granularity) return true;
  if (!config_.adaptive_granularity || config_.function_granularity)
    return false;
  if (granularity_ == planner::GranularityChoice::kUndecided) {
    // Lines until the samples show how they spread (granularity_choice.h);
    // then for good, so that the plan does not switch back and forth.
    std::vector<uint64_t> samples(catalog_.size());
    for (uint32_t i = 0; i < catalog_.size(); ++i)
      samples[i] = catalog_.line_samples(i);
    granularity_ = planner::choose_granularity(
        samples, planner_options(config_), &granularity_evidence_);
  }
  return granularity_ == planner::GranularityChoice::kFunctionsFirst;
}

std::vector<planner::Candidate> ExperimentRunner::tier(
    bool by_function, std::vector<uint32_t>* ids_out) {
  std::vector<uint32_t> ids;
  if (!fixed_lines_.empty()) {
    // With --granularity function, --fixed-line names a line of the
    // function: the concrete functions its code is in. Not the function the
    // line is written in by name: a line of an inlined function is code of
    // the functions it was inlined into (a name match found none).
    const auto& lf = line_functions();
    for (uint32_t line : fixed_lines_) {
      if (!by_function) {
        ids.push_back(line);
        continue;
      }
      if (line < lf.size())
        for (uint32_t f : lf[line])
          if (std::find(ids.begin(), ids.end(), f) == ids.end())
            ids.push_back(f);
    }
  } else {
    size_t n = by_function ? catalog_.function_count() : catalog_.size();
    for (uint32_t i = 0; i < n; ++i)
      if ((by_function ? catalog_.function_samples(i)
                       : catalog_.line_samples(i)) > 0)
        ids.push_back(i);
  }
  // Selections with the same key (one source line in two binaries) are one
  // region for the planner and the analysis; the most sampled stands for it.
  std::unordered_map<uint32_t, size_t> slot;  // key group -> index in out
  std::vector<planner::Candidate> out;
  std::vector<uint32_t> chosen;  // the selection standing for out[k]
  std::vector<uint32_t> groups;  // out[k]'s key group
  std::vector<uint64_t> best;
  for (uint32_t id : ids) {
    uint64_t s =
        by_function ? catalog_.function_samples(id) : catalog_.line_samples(id);
    // A fixed line is a candidate before it has samples.
    if (!fixed_lines_.empty()) s += 1;
    uint32_t group = group_of(id, by_function);
    auto [it, added] = slot.try_emplace(group, out.size());
    if (added) {
      out.push_back(planner::Candidate{});
      out.back().region = key_of(id, by_function);
      chosen.push_back(id);
      groups.push_back(group);
      best.push_back(0);
    }
    size_t k = it->second;
    out[k].samples += s;
    if (s > best[k]) {
      chosen[k] = id;
      best[k] = s;
    }
  }
  // In the catalog's order of their groups (deterministic and the same
  // from one experiment to the next; the planner's choices among equals
  // follow it).
  std::vector<size_t> order(out.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(),
            [&](size_t x, size_t y) { return groups[x] < groups[y]; });
  std::vector<planner::Candidate> sorted;
  sorted.reserve(out.size());
  if (ids_out != nullptr) ids_out->clear();
  for (size_t k : order) {
    region_ids_[out[k].region] = chosen[k];
    if (ids_out != nullptr) ids_out->push_back(chosen[k]);
    sorted.push_back(std::move(out[k]));
  }
  return sorted;
}

const std::string& ExperimentRunner::key_of(uint32_t selection,
                                            bool by_function) {
  KeyTable& kt = by_function ? function_keys_ : line_keys_;
  if (kt.keys.empty()) {
    size_t n = by_function ? catalog_.function_count() : catalog_.size();
    kt.keys.resize(n);
    kt.group.assign(n, kNoGroup);
  }
  std::string& key = kt.keys[selection];
  if (key.empty()) key = region_key(selection, by_function);
  return key;
}

uint32_t ExperimentRunner::group_of(uint32_t selection, bool by_function) {
  const std::string& key = key_of(selection, by_function);
  KeyTable& kt = by_function ? function_keys_ : line_keys_;
  uint32_t& group = kt.group[selection];
  if (group == kNoGroup)
    group = kt.first.try_emplace(key, selection).first->second;
  return group;
}

bool ExperimentRunner::choose_by_samples(uint32_t* id, bool* by_function) {
  // Auto: the top tier (each sample is in one of its regions).
  std::vector<planner::Candidate> c;
  for (planner::Candidate& k : candidates())
    if (k.parents.empty()) c.push_back(std::move(k));
  uint64_t total = 0;
  for (const auto& k : c) total += k.samples;
  if (total == 0) return false;
  uint64_t pick = rng_() % total;
  for (const auto& k : c) {
    if (pick < k.samples) {
      *id = region_ids_[k.region];
      *by_function = planner::is_function_region_key(k.region);
      return true;
    }
    pick -= k.samples;
  }
  return false;
}

bool ExperimentRunner::sleep_unless_stopped(uint64_t ns, const bool* stop,
                                            bool controls) {
  uint64_t end = runtime::monotonic_ns() + ns;
  for (;;) {
    // Read before the flag: a stop set after this read also bumps the word,
    // and the futex then returns at once instead of sleeping on.
    uint32_t seen = __atomic_load_n(&g_wake_word, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(stop, __ATOMIC_ACQUIRE)) return false;
    if (controls && controls_.listener != nullptr &&
        controls_.listener->pending())
      return false;
    uint64_t now = runtime::monotonic_ns();
    engine_.renew(now + kLeaseNs);
    if (now >= end) return true;
    uint64_t slice = std::min<uint64_t>(
        end - now, controls_.listener != nullptr ? kControlSliceNs : kSliceNs);
    runtime::futex_wait(&g_wake_word, seen, slice, /*shared=*/false);
  }
}

void wake_sleeping_runners() {
  __atomic_add_fetch(&g_wake_word, 1, __ATOMIC_ACQ_REL);
  runtime::futex_wake_all(&g_wake_word, /*shared=*/false);
}

void ExperimentRunner::record(const Running& r, uint64_t end, uint64_t delay,
                              uint64_t hits, const PointSnapshot& after,
                              bool end_to_end) {
  const LineInfo& info = catalog_.line(
      r.by_function ? catalog_.function(r.selection).first_line : r.selection);
  ExperimentFacts facts;
  facts.start_ns = r.start;
  facts.duration_ns = end - r.start;
  facts.delay_ns = delay;
  facts.selected_samples = hits;
  facts.speedup_pct = r.speedup;
  facts.by_function = r.by_function;
  facts.file = info.file;
  facts.line = info.line;
  facts.function =
      r.by_function ? catalog_.function(r.selection).name : info.function;
  for (const std::string& key : r.parents) {
    ExperimentFacts::Parent p;
    if (planner::split_function_region_key(key, &p.function, &p.file))
      facts.parents.push_back(std::move(p));
  }
  std::string body = encode_experiment(facts, r.before, after, end_to_end);
  runtime::io_lock().lock();
  runtime::raw_write(raw::kExperiment, body.data(), body.size());
  runtime::io_lock().unlock();
}

std::string ExperimentRunner::run_end_to_end(const bool* stop) {
  // Let samples accumulate so the line is chosen by its real weight.
  uint32_t sel = 0;
  bool by_function = false;
  while (!choose_by_samples(&sel, &by_function))
    if (!sleep_unless_stopped(20000000, stop)) return "";
  // One experiment per run: with a fixed speed-up, some runs must still be
  // 0% baselines, chosen at random since runs do not know of each other.
  int speedup = int(rng_() % 100) < kZeroSpeedupPercent ? 0
                : config_.fixed_speedup >= 0            ? config_.fixed_speedup
                                             : 5 * int(1 + rng_() % 20);
  Running r = begin(sel, by_function, speedup);
  while (sleep_unless_stopped(1000000000, stop)) {
  }
  finish(r, /*end_to_end=*/true);
  return "";
}

ExperimentRunner::Running ExperimentRunner::begin(uint32_t sel,
                                                  bool by_function,
                                                  int speedup) {
  Running r{sel,
            by_function,
            speedup,
            snapshot_points(config_.split_points),
            runtime::monotonic_ns(),
            engine_.global()};
  runtime::set_selection(int32_t(sel), by_function
                                           ? runtime::Granularity::kFunction
                                           : runtime::Granularity::kLine);
  engine_.start_experiment(config_.period_ns * uint64_t(speedup) / 100,
                           r.start + kLeaseNs,
                           config_.delay_ramps ? config_.period_ns : 0,
                           config_.delay_credit ? config_.period_ns : 0);
  return r;
}

planner::Observation ExperimentRunner::finish(const Running& r, bool end_to_end,
                                              bool keep) {
  runtime::clear_selection();
  uint64_t hits = engine_.hits();
  engine_.end_experiment();
  uint64_t end = runtime::monotonic_ns(), delay = engine_.global() - r.g0;
  PointSnapshot after = snapshot_points(config_.split_points);
  if (keep) ++recorded_;
  if (keep) record(r, end, delay, hits, after, end_to_end);
  planner::Observation o;
  o.region = region_key(r.selection, r.by_function);
  o.parents = r.parents;
  o.stream = int(getpid());
  o.speedup_pct = r.speedup;
  o.virtual_s = (double(end - r.start) - double(delay)) / 1e9;
  for (const auto& [name, a] : after) {
    auto it = r.before.find(name);
    PointState b = it == r.before.end() ? PointState{} : it->second;
    planner::PointCount p;
    p.name = name;
    p.latency = a.latency;
    p.events = a.latency ? a.begins - b.begins : a.visits - b.visits;
    p.in_flight_start = int64_t(b.begins) - int64_t(b.ends);
    p.in_flight_end = int64_t(a.begins) - int64_t(a.ends);
    o.points.push_back(std::move(p));
  }
  return o;
}

std::string ExperimentRunner::run(const bool* stop) {
  if (!config_.fixed_line.empty()) {
    size_t colon = config_.fixed_line.rfind(':');
    int line = colon == std::string::npos
                   ? 0
                   : std::atoi(config_.fixed_line.c_str() + colon + 1);
    fixed_lines_ = catalog_.find(config_.fixed_line.substr(0, colon), line);
    if (fixed_lines_.empty())
      return "experiments: --fixed-line " + config_.fixed_line +
             " is not an in-scope line with code (check the path suffix, "
             "the line number and --source-scope)";
    if (config_.function_granularity && tier(true).empty())
      return "experiments: --fixed-line " + config_.fixed_line +
             " is in no function whose code is in scope (try "
             "--granularity line)";
  }
  if (config_.end_to_end) return run_end_to_end(stop);
  // Throughput needs a progress point; wait for the program to register one
  // (or for the live page to add one: its commands are taken meanwhile).
  while (snapshot_points(config_.split_points).empty()) {
    if (controls_.listener != nullptr) controls_.poll();
    if (!sleep_unless_stopped(20000000, stop)) return "";
  }
  planner::ExperimentPlanner plan(planner_options(config_), rng_());
  follow_timer_floor_ = true;
  run_planned(&plan, stop, 0, false);
  return "";
}

int ExperimentRunner::run_planned(planner::ExperimentPlanner* planner,
                                  const bool* stop, int max_experiments,
                                  bool until_settled) {
  int done = 0;
  while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
    // Live controls: a new command is applied (and acknowledged) here,
    // between experiments; while paused no experiment starts.
    if (controls_.listener != nullptr) {
      uint64_t applied = controls_.applied;
      if (!controls_.wait_while_paused(stop)) break;
      // A new pin (or a pause) breaks the open block: its second half
      // would be on the old region.
      if (controls_.applied != applied) planner->discard();
    }
    if (max_experiments > 0 && done >= max_experiments) break;
    if (until_settled && planner->tracker().status().state !=
                             planner::ConvergenceState::kRunning)
      break;
    // P5's floor as the timer's interval gets measured (not the Runner's:
    // its floor is its round_duration).
    if (follow_timer_floor_)
      planner->set_min_length_ns(shortest_experiment_ns(config_));
    // Three experiments in four finish a mirrored pair (P1) and need no
    // candidates: building them (every sampled line and function, with
    // their keys) was a third of this thread's CPU on LevelDB.
    static const std::vector<planner::Candidate> kNone;
    std::optional<planner::Plan> plan =
        planner->next(planner->block_open() ? kNone : candidates());
    if (!plan) {  // nothing sampled yet
      if (!sleep_unless_stopped(20000000, stop)) break;
      continue;
    }
    Running r =
        begin(region_ids_[plan->region],
              planner::is_function_region_key(plan->region), plan->speedup_pct);
    r.parents = plan->parents;
    bool completed = sleep_unless_stopped(plan->length_ns, stop, true);
    // Cut short by exit or by a control command (a pause, a new pin): not
    // a valid measurement, not recorded.
    planner::Observation o = finish(r, /*end_to_end=*/false, completed);
    if (!completed) {
      if (__atomic_load_n(stop, __ATOMIC_ACQUIRE)) break;
      continue;  // the command is applied at the top of the loop
    }
    planner->record(o);
    ++done;
    if (!sleep_unless_stopped(config_.cooloff_ns, stop, true) &&
        __atomic_load_n(stop, __ATOMIC_ACQUIRE))
      break;
  }
  return done;
}

void ExperimentRunner::set_controls(ControlListener* listener) {
  controls_.listener = listener;
  controls_.apply = [this](const runtime::ControlCommand& c) {
    return apply_control(c);
  };
  controls_.sleep = [](uint64_t ns) {
    timespec ts{time_t(ns / 1000000000u), long(ns % 1000000000u)};
    nanosleep(&ts, nullptr);
  };
  controls_.note = [](const std::string& text) {
    runtime::io_lock().lock();
    runtime::raw_write_note(text.c_str());
    runtime::io_lock().unlock();
  };
}

runtime::ControlAck ExperimentRunner::apply_control(
    const runtime::ControlCommand& c) {
  runtime::ControlAck ack;
  ack.pid = int32_t(getpid());
  std::string target = c.pin_target;
  std::string error;
  if (c.pin == runtime::PinKind::kNone) {
    pinned_ = false;
    pin_ids_.clear();
    pin_text_.clear();
    pin_kind_ = runtime::PinKind::kNone;
  } else {
    std::vector<uint32_t> ids;
    bool by_function = c.pin == runtime::PinKind::kFunction;
    std::string text;
    if (by_function) {
      // The function's name as the catalog has it, or without its
      // parameter list ("f" for "f(int)").
      for (uint32_t f = 0; f < catalog_.function_count(); ++f) {
        const std::string& name = catalog_.function(f).name;
        if (name == target || (name.size() > target.size() &&
                               name.compare(0, target.size(), target) == 0 &&
                               name[target.size()] == '('))
          ids.push_back(f);
      }
      text = target + " (function)";
      if (ids.empty())
        error = "pin: no in-scope function is named '" + target +
                "' (check the name and --source-scope)";
    } else {
      ids = catalog_.find(target, c.pin_line);
      text = target + ":" + std::to_string(c.pin_line) + " (" +
             std::to_string(ids.size()) +
             (ids.size() == 1 ? " line)" : " lines)");
      if (ids.empty())
        error = "pin: " + target + ":" + std::to_string(c.pin_line) +
                " is not an in-scope line with code (check the path "
                "suffix, the line number and --source-scope)";
    }
    if (error.empty()) {
      pinned_ = true;
      pin_by_function_ = by_function;
      pin_ids_ = std::move(ids);
      pin_text_ = text;
      pin_kind_ = c.pin;
    }
  }
  // The sample period (a multiple of the run's: each sample's weight keeps
  // the profile and the delays in the run's unit). Threads follow at their
  // next sample.
  const uint32_t multiple =
      std::clamp<uint32_t>(c.period_multiple, 1, runtime::kMaxPeriodMultiple);
  if (multiple != runtime::sample_period_multiple()) {
    runtime::sample_period_set_multiple(multiple);
    char text[200];
    std::snprintf(text, sizeof text,
                  "sample period: %g ms (%u x the run's) from the live page, "
                  "after %llu experiments; each sample stands for %u of the "
                  "run's periods",
                  double(config_.period_ns) * multiple / 1e6, multiple,
                  static_cast<unsigned long long>(recorded_), multiple);
    runtime::io_lock().lock();
    runtime::raw_write_note(text);
    runtime::io_lock().unlock();
  }
  ack.period_multiple = runtime::sample_period_multiple();
  ack.status = error.empty() ? 0 : 1;
  ack.paused = c.paused;
  ack.pin = pinned_ ? pin_kind_ : runtime::PinKind::kNone;
  std::strncpy(ack.pin_text, pin_text_.c_str(), sizeof ack.pin_text - 1);
  std::strncpy(ack.error, error.c_str(), sizeof ack.error - 1);
  ack.experiments = recorded_;
  ack.time_ns = runtime::monotonic_ns();
  return ack;
}

}  // namespace andweorc::coordinator
