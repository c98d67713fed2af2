// experiment_runner.h: the experiment loop of the coordinator thread.
//
// The plan (what to speed up, by how much, for how long) is the experiment
// planner's (experiment_planner.h: paired 0%/s% blocks, successive
// elimination, length from the points' rates); this class carries it out:
// it lets the sample handler insert delays for the planned length, then
// records the virtual duration and every progress point's change, and tells
// the planner what it measured.
#ifndef ANDWEORC_COORDINATOR_EXPERIMENT_RUNNER_H_
#define ANDWEORC_COORDINATOR_EXPERIMENT_RUNNER_H_

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "coordinator/control_listener.h"
#include "coordinator/coordinator_config.h"
#include "coordinator/experiment_record.h"
#include "coordinator/line_catalog.h"
#include "planner/experiment_planner.h"
#include "planner/granularity_choice.h"
#include "runtime/delay_engine.h"

namespace andweorc::coordinator {

// The runtime's progress-point totals now: added up over a process tree,
// or per process or executable (CoordinatorConfig::split_points).
PointSnapshot snapshot_points(SplitPoints split = SplitPoints::kNone);

// Wakes every runner of this process sleeping between or inside experiments:
// call it after setting the stop flag it was given, so that it sees the flag
// at once (runners otherwise sleep up to a quarter of a second at a time).
void wake_sleeping_runners();

class ExperimentRunner {
 public:
  ExperimentRunner(const CoordinatorConfig& config, const LineCatalog& catalog,
                   runtime::DelayEngine& engine);
  // Runs experiments until *stop becomes true. Returns a note for the report
  // when it could not run any (e.g. the fixed line is not in scope).
  std::string run(const bool* stop);
  // Runs the planner's experiments until *stop, `max_experiments` of them
  // (0: no limit), or, with `until_settled`, until the planner's answer is
  // stable or flat. Returns the number of experiments recorded.
  int run_planned(planner::ExperimentPlanner* planner, const bool* stop,
                  int max_experiments, bool until_settled);

  // The live controls (control_listener.h): from now on run_planned()
  // takes their commands between experiments (cutting a running one short,
  // unrecorded, when one arrives) and waits while paused. Not owned.
  void set_controls(ControlListener* listener);
  // Applies a command: pause flag and pin (resolved in the catalog, as
  // --fixed-line is). Returns the acknowledgement (seq is the caller's).
  runtime::ControlAck apply_control(const runtime::ControlCommand& c);

  // The planner's settings for this configuration (levels, lengths, fixed
  // speed-up).
  static planner::PlannerOptions planner_options(const CoordinatorConfig& c);
  // The region key the planner and the analysis share for a selection (a
  // function id when by_function, else a line id).
  std::string region_key(uint32_t selection, bool by_function) const;

 private:
  // The candidates of the planner's P3: every sampled line (or function),
  // or only the --fixed-line ones; with --granularity auto, the sampled
  // functions and the sampled lines with their functions as parents (P6).
  // Fills region_ids_.
  std::vector<planner::Candidate> candidates();
  // One tier's candidates, in the catalog's order of their key groups;
  // `ids` (optional) gets the selection that stands for each.
  std::vector<planner::Candidate> tier(bool by_function,
                                       std::vector<uint32_t>* ids = nullptr);
  // A selection's region key, and the first selection seen with the same
  // key (one source line in two binaries is one region): each made once,
  // when first asked for, since the catalog does not change under a runner
  // and candidates() needs them for every sampled selection before every
  // experiment (issue 11: building the keys and a map of them anew each
  // time cost ~1.5 ms per experiment on zstd).
  struct KeyTable {
    std::vector<std::string> keys;  // "" until made
    std::vector<uint32_t> group;    // kNoGroup until made
    std::unordered_map<std::string, uint32_t> first;
  };
  static constexpr uint32_t kNoGroup = ~0u;
  const std::string& key_of(uint32_t selection, bool by_function);
  uint32_t group_of(uint32_t selection, bool by_function);
  // Whether functions are planned first: --granularity auto, or adaptive
  // once the samples spread over more lines than a plan reaches
  // (planner/granularity_choice.h).
  bool functions_first();
  // Auto: the function ids whose code holds each line id (from the address
  // table; a line inlined into several functions has several).
  const std::vector<std::vector<uint32_t>>& line_functions();

  // One experiment from start to end: begin() selects and starts inserting
  // delays; finish() stops, and records it when `keep`.
  struct Running {
    uint32_t selection;
    bool by_function;  // selection is a function id
    int speedup;
    PointSnapshot before;
    uint64_t start;
    uint64_t g0;  // global delay count at the start
    // The plan's parents (coarse to fine: the line's function keys),
    // recorded with the experiment.
    std::vector<std::string> parents = {};
  };
  Running begin(uint32_t selection, bool by_function, int speedup);
  // Returns what the experiment measured, as the planner sees it.
  planner::Observation finish(const Running& r, bool end_to_end,
                              bool keep = true);
  // Sleeps up to ns, waking to renew the lease (and, with live controls,
  // every 10 ms to look for a command); false if asked to stop meanwhile
  // (wake_sleeping_runners) or, with `controls`, when a command is waiting.
  bool sleep_unless_stopped(uint64_t ns, const bool* stop,
                            bool controls = false);
  void record(const Running& r, uint64_t end, uint64_t delay, uint64_t hits,
              const PointSnapshot& after, bool end_to_end);
  std::string run_end_to_end(const bool* stop);
  // In proportion to samples (end-to-end runs: one experiment per run).
  bool choose_by_samples(uint32_t* id, bool* by_function);

  const CoordinatorConfig& config_;
  const LineCatalog& catalog_;
  runtime::DelayEngine& engine_;
  std::mt19937_64 rng_;
  std::vector<uint32_t> fixed_lines_;
  std::unordered_map<std::string, uint32_t> region_ids_;  // key -> selection
  KeyTable line_keys_, function_keys_;                    // see key_of()
  std::vector<std::vector<uint32_t>> line_functions_;  // see line_functions()
  planner::GranularityChoice granularity_ =
      planner::GranularityChoice::kUndecided;  // adaptive's choice
  planner::GranularityEvidence granularity_evidence_;
  // Live controls: the loop that takes commands, and the pin in force
  // (candidates() offers only these selections while `pinned_`).
  ControlLoop controls_;
  bool pinned_ = false;
  bool pin_by_function_ = false;
  std::vector<uint32_t> pin_ids_;
  std::string pin_text_;
  runtime::PinKind pin_kind_ = runtime::PinKind::kNone;
  // run(): the planner's floor follows the timer's measured interval.
  bool follow_timer_floor_ = false;
  // Experiments recorded by this process's runners (for the
  // acknowledgement): one runner per table, so a shell's coordinator, whose
  // table changes (coordinator.cc), counts on across them.
  static inline uint64_t recorded_ = 0;
};

}  // namespace andweorc::coordinator

#endif  // ANDWEORC_COORDINATOR_EXPERIMENT_RUNNER_H_
