// profile_builder.cc: see profile_builder.h.
#include "ingest/profile_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "ingest/experiment_cpu.h"
#include "ingest/frame_chain.h"
#include "ingest/label_resolver.h"
#include "ingest/trace_join.h"
#include "runtime/raw_format.h"
#include "runtime/split_points.h"
#include "symbols/scope.h"

namespace andweorc::ingest {
namespace {

using symbols::default_binary_scope;
using symbols::default_source_scope;
using symbols::ScopeMatcher;

class FrameTable {
 public:
  explicit FrameTable(profile::Profile* p) : profile_(p) {}
  uint32_t intern(const profile::Frame& f) {
    std::string key =
        fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}{}", f.function, f.file, f.line,
                    f.module, int(f.inlined), int(f.in_scope));
    auto [it, added] =
        index_.try_emplace(key, uint32_t(profile_->frames.size()));
    if (added) profile_->frames.push_back(f);
    return it->second;
  }

 private:
  profile::Profile* profile_;
  std::unordered_map<std::string, uint32_t> index_;
};

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One maps snapshot of a process, with the frames already looked up in it.
struct MapsSnapshot {
  uint64_t time_ns = 0;
  symbols::ProcessMaps maps;
  std::unordered_map<uint64_t, std::vector<uint32_t>> leaf_cache, caller_cache;
};

struct ProcessContext {
  const RawProcess& raw;
  std::vector<MapsSnapshot> snapshots;  // time order; never empty
};

ProcessContext make_context(const RawProcess& p) {
  ProcessContext ctx{p, {}};
  for (const RawMapsSnapshot& m : p.maps_history)
    ctx.snapshots.push_back(
        MapsSnapshot{m.time_ns, symbols::ProcessMaps::parse(m.text), {}, {}});
  if (ctx.snapshots.empty())
    ctx.snapshots.push_back(
        MapsSnapshot{0, symbols::ProcessMaps::parse(p.maps), {}, {}});
  return ctx;
}

// The snapshot to read `code` (an address in a sample taken at time_ns)
// with: the first one taken at or after the sample, which has every mapping
// of that moment unless one was unmapped in between (the runtime writes a
// snapshot before each dlclose). If the address is mapped there, a library
// loaded later at the same place cannot be mistaken for the one sampled
// (issue 12 item 9). If it is not (a library unloaded while its destructors
// were sampled), the latest earlier snapshot that maps it.
MapsSnapshot& snapshot_for(ProcessContext& ctx, uint64_t time_ns,
                           uint64_t code) {
  auto& snaps = ctx.snapshots;
  if (snaps.size() == 1) return snaps[0];
  auto it = std::lower_bound(
      snaps.begin(), snaps.end(), time_ns,
      [](const MapsSnapshot& m, uint64_t t) { return m.time_ns < t; });
  size_t first = size_t(it - snaps.begin());
  size_t at = std::min(first, snaps.size() - 1);
  if (snaps[at].maps.find(code) != nullptr) return snaps[at];
  for (size_t j = at; j-- > 0;)
    if (snaps[j].maps.find(code) != nullptr) return snaps[j];
  return snaps[at];
}

const std::vector<uint32_t>& frames_for(ProcessContext& ctx, MapsSnapshot& snap,
                                        uint64_t address,
                                        bool is_return_address,
                                        symbols::Symbolizer& symbolizer,
                                        const ScopeMatcher& scope,
                                        FrameTable& table) {
  auto& cache = is_return_address ? snap.caller_cache : snap.leaf_cache;
  auto it = cache.find(address);
  if (it != cache.end()) return it->second;
  symbols::Location loc =
      symbolizer.symbolize(snap.maps, address, is_return_address);
  std::vector<uint32_t> ids;
  bool binary_in = scope.binary_matches(loc.module, ctx.raw.executable);
  for (profile::Frame& f : frame_chain(loc)) {
    f.in_scope = binary_in && f.line > 0 && scope.source_matches(f.file);
    ids.push_back(table.intern(f));
  }
  return cache.emplace(address, std::move(ids)).first->second;
}

class LabelTable {
 public:
  explicit LabelTable(profile::Profile* p) : profile_(p) {}
  uint32_t intern(const std::string& key, const std::string& value) {
    profile::Label l{key, value};
    auto [it, added] = index_.try_emplace(l, uint32_t(profile_->labels.size()));
    if (added) profile_->labels.push_back(std::move(l));
    return it->second;
  }

 private:
  profile::Profile* profile_;
  std::map<profile::Label, uint32_t> index_;
};

// Each experiment's window, to sum the CPU time sampled in it.
WindowWeights experiment_windows(const RawProcess& p) {
  std::vector<std::pair<uint64_t, uint64_t>> windows;
  for (const RawExperiment& re : p.experiments)
    windows.emplace_back(re.start_ns, re.start_ns + re.duration_ns);
  return WindowWeights(std::move(windows));
}

// As experiment_cpu_s (experiment_cpu.h) with every sample of the process.
void add_experiments(const RawProcess& p, const WindowWeights& windows,
                     profile::Profile* out) {
  for (size_t i = 0; i < p.experiments.size(); ++i) {
    out->experiments.push_back(to_experiment(p.experiments[i], p.pid));
    out->experiments.back().cpu_s =
        p.period_ns == 0
            ? -1
            : double(windows.weight(i)) * double(p.period_ns) / 1e9;
  }
}

void add_process_warnings(const RawProcess& p, profile::Profile* out) {
  for (const auto& note : p.notes) out->warnings.push_back(note);
  if (!p.clean_exit) {
    out->warnings.push_back(fmt::format(
        "process {} ({}) did not shut down normally (killed or crashed): its "
        "last few milliseconds of samples may be missing",
        p.pid, basename_of(p.executable)));
  }
}

void add_module_warnings(const symbols::Symbolizer& symbolizer,
                         const std::set<std::string>& main_executables,
                         profile::Profile* out) {
  for (const auto& m : symbolizer.modules_seen()) {
    bool is_main = main_executables.count(m.path) > 0;
    if (!m.opened) {
      if (is_main)
        out->warnings.push_back(
            fmt::format("cannot read {} to map its samples to source: {}",
                        m.path, m.error));
    } else if (!m.has_dwarf && is_main) {
      out->warnings.push_back(fmt::format(
          "{} has no debug info: its samples map to functions at best, not "
          "lines. Fix: rebuild with -g (and keep it unstripped)",
          m.path));
    }
  }
}

}  // namespace

profile::Experiment to_experiment(const RawExperiment& re, int pid) {
  profile::Experiment e;
  e.file = re.file;
  e.line = re.line;
  e.function = re.function;
  e.granularity = re.function_granularity ? "function" : "line";
  e.speedup_pct = re.speedup_pct;
  e.duration_s = double(re.duration_ns) / 1e9;
  e.delay_s = double(re.delay_ns) / 1e9;
  e.selected_samples = re.selected_samples;
  e.pid = pid;
  for (const RawExperiment::Parent& p : re.parents)
    e.parents.push_back({p.function, p.file});
  for (const RawExperimentPoint& rp : re.points) {
    profile::PointDelta d;
    d.name = rp.name;
    d.kind = rp.latency ? profile::PointKind::kLatency
                        : profile::PointKind::kThroughput;
    if (rp.latency) {
      d.arrivals = rp.delta;
      d.departures = rp.departures;
      d.in_flight_start = rp.in_flight_start;
      d.in_flight_end = rp.in_flight_end;
    } else {
      d.visits = rp.delta;
    }
    e.points.push_back(std::move(d));
  }
  return e;
}

void build_profile(const std::vector<RawProcess>& processes,
                   const BuildOptions& options, symbols::Symbolizer& symbolizer,
                   profile::Profile* out) {
  out->scope.binary = options.binary_scope.empty() ? default_binary_scope()
                                                   : options.binary_scope;
  out->scope.source = options.source_scope.empty() ? default_source_scope()
                                                   : options.source_scope;
  ScopeMatcher scope(out->scope.binary, out->scope.source);
  FrameTable table(out);
  LabelTable labels(out);
  // (frames, labels) -> samples
  std::map<std::pair<std::vector<uint32_t>, std::vector<uint32_t>>, uint64_t>
      stacks;
  std::map<std::pair<std::string, profile::PointKind>, size_t> point_index;
  std::set<std::string> main_executables;
  TraceBuilder traces;

  for (const RawProcess& p : processes) {
    traces.begin_process(p);
    profile::Process proc{p.pid, p.executable, p.clean_exit};
    proc.parent = p.ppid;
    proc.experiments = p.tree_experiments;
    if (p.has_cost) {
      proc.cpu_s = double(p.process_cpu_ns) / 1e9;
      proc.profiler_cpu_s = double(p.runtime_cpu_ns) / 1e9;
    }
    size_t proc_index = out->processes.size();
    out->processes.push_back(std::move(proc));
    main_executables.insert(p.executable);
    out->threads += p.threads.size();
    out->lost_samples += p.lost_samples;
    ProcessContext ctx = make_context(p);
    LabelResolver resolver(p.label_bindings);
    WindowWeights windows = experiment_windows(p);
    uint64_t weight = 0;
    // Samples stream by (from the file for a run's raw files): what stays
    // is one entry per distinct stack, not per sample (issue 11).
    auto add_sample = [&](const RawSample& s) {
      std::vector<uint32_t> stack, stack_labels;
      for (size_t i = 0; i < s.frames.size(); ++i) {
        // A return address points after the call: look up the call itself.
        uint64_t code =
            i > 0 && s.frames[i] > 0 ? s.frames[i] - 1 : s.frames[i];
        if (resolver.is_machinery(code)) {
          // A label trampoline: it names the label and is hidden.
          if (const RawLabelBinding* b = resolver.label_at(code, s.time_ns)) {
            uint32_t id = labels.intern(b->key, b->value);
            if (std::find(stack_labels.begin(), stack_labels.end(), id) ==
                stack_labels.end())
              stack_labels.push_back(id);
          }
          continue;
        }
        MapsSnapshot& snap = snapshot_for(ctx, s.time_ns, code);
        const auto& ids =
            frames_for(ctx, snap, s.frames[i], i > 0, symbolizer, scope, table);
        stack.insert(stack.end(), ids.begin(), ids.end());
      }
      auto it =
          stacks.try_emplace({std::move(stack), std::move(stack_labels)}, 0)
              .first;
      it->second += s.weight;
      traces.add_sample(s, &it->first);
      windows.add(s.time_ns, s.weight);
      weight += s.weight;
    };
    std::string error;
    if (!for_each_sample(p, add_sample, &error)) out->warnings.push_back(error);
    out->processes[proc_index].samples = weight;
    out->samples += weight;
    for (const RawPoint& rp : p.points) {
      bool latency = rp.kind != 1;  // ANDWEORC_KIND_THROUGHPUT
      auto kind = latency ? profile::PointKind::kLatency
                          : profile::PointKind::kThroughput;
      std::string name = runtime::split_point_name(
          rp.name, runtime::split_points_from(options.split_points), p.pid,
          p.executable);
      auto [it, added] =
          point_index.try_emplace({name, kind}, out->points.size());
      if (added) out->points.push_back(profile::ProgressPoint{name, kind});
      profile::ProgressPoint& pt = out->points[it->second];
      if (rp.kind == 1) pt.visits += rp.value;
      if (rp.kind == 2) pt.begins += rp.value;
      if (rp.kind == 3) pt.ends += rp.value;
    }
    add_experiments(p, windows, out);
    add_process_warnings(p, out);
  }
  std::map<const void*, uint32_t> stack_index;  // for the traces
  for (auto& [key, count] : stacks) {
    stack_index[&key] = uint32_t(out->stacks.size());
    out->stacks.push_back(profile::Stack{key.first, count, key.second});
  }
  traces.finish([&](const void* key) { return stack_index.at(key); }, out);
  add_module_warnings(symbolizer, main_executables, out);
  if (out->lost_samples > 0)
    out->warnings.push_back(
        fmt::format("{} samples were dropped because a buffer was full",
                    out->lost_samples));
  if (processes.empty())
    out->warnings.push_back(
        "no profiling data: the program exited before the runtime started, "
        "or it is statically linked (LD_PRELOAD cannot reach it)");
  else if (out->samples == 0)
    out->warnings.push_back(
        "no samples: the program used less CPU time than one sample period; "
        "run it longer or lower --sample-period");
}

}  // namespace andweorc::ingest
