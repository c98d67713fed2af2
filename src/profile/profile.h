// profile.h: the profile data model every reader and writer shares.
//
// A Profile is what `andweorc run` saves and `andweorc report` loads. It is
// plain data: the tool builds it from the runtime's raw records (src/ingest),
// writers render it (src/report), and profile_json.h maps it to the
// versioned JSON file format documented in docs/profile-format.md.
#ifndef ANDWEORC_PROFILE_PROFILE_H_
#define ANDWEORC_PROFILE_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace andweorc::profile {

// JSON schema version: readers reject another major version.
inline constexpr int kSchemaMajor = 1;
inline constexpr int kSchemaMinor = 8;

// One source-level frame. An address inside inlined code expands into several
// Frames (innermost first), the outer ones with inlined == false only for the
// concrete function.
struct Frame {
  std::string function;  // demangled; "" when unknown
  std::string file;      // "" when unknown
  int line = 0;          // 0 when unknown
  std::string module;    // ELF path; "" when the address was not mapped
  bool inlined = false;
  bool in_scope = false;  // matched the run's binary and source scope
  bool operator==(const Frame&) const = default;
};

// An application label (andweorc::Label) that samples can carry.
struct Label {
  std::string key;
  std::string value;
  bool operator==(const Label&) const = default;
  auto operator<=>(const Label&) const = default;
};

// A distinct call stack and how many samples (weighted) had it.
struct Stack {
  std::vector<uint32_t> frames;  // indices into Profile::frames, leaf first
  uint64_t samples = 0;
  // Indices into Profile::labels of the labels the samples carried, the
  // innermost apply first; empty for unlabelled samples.
  std::vector<uint32_t> labels = {};
  bool operator==(const Stack&) const = default;
};

enum class PointKind { kThroughput, kLatency };

struct ProgressPoint {
  std::string name;
  PointKind kind = PointKind::kThroughput;
  uint64_t visits = 0;  // throughput points
  uint64_t begins = 0;  // latency points
  uint64_t ends = 0;
  bool operator==(const ProgressPoint&) const = default;
};

struct Process {
  int pid = 0;
  std::string executable;
  bool clean_exit = false;  // the runtime wrote its end record
  // Since 1.4 (issue 15), optional in files: the parent's pid (0 unknown),
  // this process's samples, and the causal experiments it took part in
  // (-1: unknown).
  int parent = 0;
  uint64_t samples = 0;
  int experiments = -1;
  // Since 1.8 (issue 11), optional: CPU time of the whole process and of
  // the profiler's own threads in it (collector, coordinator), seconds;
  // < 0 when unknown (an older runtime, a process that did not end
  // cleanly).
  double cpu_s = -1;
  double profiler_cpu_s = -1;
  bool operator==(const Process&) const = default;
};

struct RunInfo {
  std::vector<std::string> command;
  std::string start_time;  // ISO 8601, UTC
  double duration_s = 0;   // wall time of the whole run
  int exit_status = 0;     // child's exit code; -1 when killed by a signal
  int exit_signal = 0;     // the signal that killed it, else 0
  std::string sampler;     // "perf", "timer" or "none"
  uint64_t sample_period_ns = 0;
  std::string tool_version;
  bool operator==(const RunInfo&) const = default;
};

struct Scope {
  std::vector<std::string> binary;  // globs; "MAIN" = each main executable
  std::vector<std::string> source;  // globs on source file paths
  bool operator==(const Scope&) const = default;
};

// One progress point's change during one experiment.
struct PointDelta {
  std::string name;
  PointKind kind = PointKind::kThroughput;
  uint64_t visits = 0;      // throughput: visits during the experiment
  uint64_t arrivals = 0;    // latency: BEGINs during the experiment
  uint64_t departures = 0;  // latency: ENDs during the experiment
  // latency: transactions in flight (begins - ends since start) at the
  // experiment's start and end, for Little's law.
  int64_t in_flight_start = 0;
  int64_t in_flight_end = 0;
  bool operator==(const PointDelta&) const = default;
};

// One causal experiment: while it ran, `selected` was virtually sped up by
// speedup_pct percent by delaying every other thread.
struct Experiment {
  std::string file;  // the selected line (or function's first line)
  int line = 0;
  std::string function;              // demangled function containing it
  std::string granularity = "line";  // "line" or "function"
  int speedup_pct = 0;               // 0..100
  double duration_s = 0;             // wall-clock length
  double delay_s = 0;                // total delay inserted (per thread)
  uint64_t selected_samples = 0;     // samples that hit the selection
  int pid = 0;                       // process that ran it
  // CPU time the process's sampled threads used during it (samples in its
  // window x period, since 1.5); < 0 when unknown (older profiles, Coz
  // imports). The plausibility bound's CPU share (plausibility.h).
  double cpu_s = -1;
  // Coarse to fine, a line's experiment: the functions that hold the line
  // (since 1.7; the stopping rule's R3 takes a line out of play with them).
  struct Parent {
    std::string function, file;
    bool operator==(const Parent&) const = default;
  };
  std::vector<Parent> parents;
  std::vector<PointDelta> points;
  double virtual_duration_s() const { return duration_s - delay_s; }
  bool operator==(const Experiment&) const = default;
};

// How experiments were chosen (mirrors `andweorc run` options).
struct ExperimentSettings {
  bool enabled = false;          // false: sampling-only run
  std::string fixed_line;        // "FILE:LINE" or "" for random choice
  int fixed_speedup = -1;        // percent, or -1 for random choice
  bool end_to_end = false;       // one experiment over the whole run
  double experiment_time_s = 0;  // initial experiment length
  uint64_t seed = 0;
  std::string granularity = "line";
  // --granularity auto (since 1.4): functions first, then lines; each
  // experiment records its own granularity, `granularity` is "line".
  bool coarse_to_fine = false;
  bool operator==(const ExperimentSettings&) const = default;
};

// Where the experiment plan's answer stood when the run ended (since 1.3;
// state "" when absent). docs/causal-analysis.md, "Stopping rule".
struct Convergence {
  std::string state;    // "stable", "flat" or "running"
  int experiments = 0;  // experiments it is based on
  int regions = 0;      // regions with at least one paired block
  int in_play = 0;      // of them, still in play
  std::string point;    // the progress point the leader is for
  std::string leader;   // "FILE:LINE" or a function; "" when none
  double impact = 0;    // the leader's impact and 95% interval
  double ci_low = 0;
  double ci_high = 0;
  int stable_for = 0;        // experiments the leader has led
  double useful_impact = 0;  // smaller impacts do not matter
  // The leader's Benjamini-Hochberg q-value among the point's judged
  // regions (since 1.4; 1 when absent or no leader).
  double q_value = 1;
  bool operator==(const Convergence&) const = default;
};

// Samples that fell inside calls of a traced function (--trace), by the
// duration of the call they fell in (its innermost call of that function
// when it recursed). Since 1.6.
struct TraceSample {
  uint32_t stack = 0;        // index into Profile::stacks
  uint64_t duration_ns = 0;  // of the call the samples fell in
  uint64_t samples = 0;      // weighted samples
  bool operator==(const TraceSample&) const = default;
};

// One function traced with `andweorc run --trace`. Since 1.6.
struct TracedFunction {
  std::string name;                    // as given to --trace
  bool traced = true;                  // false: the runtime could not patch it
  std::vector<uint64_t> durations_ns;  // every recorded call, ascending
  std::vector<TraceSample> samples;    // ordered by (stack, duration)
  bool operator==(const TracedFunction&) const = default;
};

struct Profile {
  RunInfo run;
  ExperimentSettings settings;
  Scope scope;
  std::vector<Process> processes;
  uint64_t threads = 0;
  uint64_t samples = 0;       // weighted samples recorded
  uint64_t lost_samples = 0;  // dropped because a buffer was full
  std::vector<Frame> frames;
  std::vector<Stack> stacks;
  std::vector<Label> labels;  // distinct (key, value) pairs; since 1.2
  std::vector<ProgressPoint> points;
  std::vector<std::string> warnings;    // sentences for the user
  std::vector<Experiment> experiments;  // empty when none ran
  Convergence convergence;              // since 1.3
  std::vector<TracedFunction> traces;   // since 1.6 (--trace)
  bool operator==(const Profile&) const = default;
};

}  // namespace andweorc::profile

#endif  // ANDWEORC_PROFILE_PROFILE_H_
