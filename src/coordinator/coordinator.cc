// coordinator.cc: the coordinator thread: builds the line catalog, then runs
// experiments (see experiment_runner.h). Installs itself as the runtime's
// coordinator hooks (runtime/coordinator_hook.h).
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "coordinator/control_listener.h"
#include "coordinator/coordinator_config.h"
#include "coordinator/experiment_runner.h"
#include "coordinator/line_catalog.h"
#include "runtime/address_table.h"
#include "runtime/attach_settings.h"
#include "runtime/coordinator_hook.h"
#include "runtime/probe_live.h"
#include "runtime/raw_writer.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/shared_tree.h"
#include "symbols/symbolizer.h"

namespace andweorc::coordinator {
namespace {

using runtime::clear_selection;
using runtime::delay_engine;
using runtime::io_lock;
using runtime::publish_address_table;
using runtime::raw_write_note;
using runtime::real;

CoordinatorConfig* g_config = nullptr;
bool g_started = false;
bool g_stop = false;
bool g_running = false;  // the thread is alive (atomic)
pthread_t g_thread;      // joined by coordinator_detach only

void note(const std::string& text) {
  io_lock().lock();
  raw_write_note(text.c_str());
  io_lock().unlock();
}

// How often a first process without code of its own (a shell) looks for
// newly started programs: the coordinator waits 100 ms more for the others
// of a pipeline anyway, and each look wakes a thread (issue 11).
constexpr long kRegistrationPollMs = 50;

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&ts, nullptr);
}

std::vector<std::string> registered_images(const runtime::TreeSegment& t) {
  char paths[runtime::kTreeImages][runtime::kTreeImagePathMax];
  int n = runtime::tree_registered_images(t, paths, runtime::kTreeImages);
  return std::vector<std::string>(paths, paths + n);
}

// Sets *regen when a program registers that the catalog does not cover yet,
// or when the coordinator stops (the experiments of the current table end).
struct RegenWatch {
  const runtime::TreeSegment* tree;
  size_t covered;
  bool regen = false;
  bool done = false;
};

void* watch_registrations(void* arg) {
  runtime::note_runtime_thread("andweorc-watch");
  auto* w = static_cast<RegenWatch*>(arg);
  while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
    if (__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE) ||
        registered_images(*w->tree).size() != w->covered) {
      __atomic_store_n(&w->regen, true, __ATOMIC_RELEASE);
      wake_sleeping_runners();
      break;
    }
    sleep_ms(kRegistrationPollMs);
  }
  runtime::note_runtime_thread_end();
  return nullptr;
}

// A first process without in-scope code of its own (a shell, a launcher;
// shared_tree.h coordinator_state 3): the experiments are those of the
// programs it starts. Each exec'd image registers its executable; each time
// one appears the catalog is built anew from all of them (read from their
// files) and the experiments go on with the new table. Experiments already
// recorded keep their file:line names, so the analysis pools them across
// tables.
void run_for_started_programs(const symbols::ScopeMatcher& scope,
                              ControlListener* controls) {
  runtime::TreeSegment* t = runtime::tree();
  symbols::Symbolizer symbolizer;  // keeps each file's DWARF between tables
  std::vector<std::string> covered;
  std::vector<std::string> said;
  uint32_t generation = 0;
  std::string problem;
  bool said_full = false;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    if (registered_images(*t).size() == covered.size()) {
      sleep_ms(kRegistrationPollMs);
      continue;
    }
    // The programs of one pipeline or `a & b` start together: give the
    // others a moment to register, so that one table has them all.
    sleep_ms(100);
    covered = registered_images(*t);
    if (__atomic_load_n(&t->images_full, __ATOMIC_RELAXED) && !said_full) {
      note("experiments: the program started more than " +
           std::to_string(runtime::kTreeImages) +
           " different executables; the lines of those after the first " +
           std::to_string(runtime::kTreeImages) +
           " are sampled but never selected");
      said_full = true;
    }
    std::vector<std::string> notes;
    auto* catalog =
        LineCatalog::build_from_files(scope, covered, ++generation, &symbolizer,
                                      g_config->line_cache, &notes)
            .release();  // its table is read until exit
    for (const auto& n : notes)
      if (std::find(said.begin(), said.end(), n) == said.end()) {
        note(n);
        said.push_back(n);
      }
    if (catalog->size() == 0) continue;
    catalog->publish_generation();
    ExperimentRunner runner(*g_config, *catalog, delay_engine());
    if (controls != nullptr) runner.set_controls(controls);
    RegenWatch watch{t, covered.size()};
    pthread_t watcher;
    if (real().pthread_create(&watcher, nullptr, watch_registrations, &watch) !=
        0)
      break;
    problem = runner.run(&watch.regen);
    __atomic_store_n(&watch.done, true, __ATOMIC_RELEASE);
    pthread_join(watcher, nullptr);
    // A problem of this table (a --fixed-line in none of its programs) may
    // be gone with the next: wait for one.
    while (!problem.empty() && !__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE) &&
           registered_images(*t).size() == covered.size())
      sleep_ms(kRegistrationPollMs);
  }
  if (!problem.empty()) note(problem);
}

void* coordinator_main(void*) {
  runtime::note_runtime_thread("andweorc-coord");  // not the program's
  __atomic_store_n(&g_running, true, __ATOMIC_RELEASE);
  symbols::ScopeMatcher scope(
      g_config->binary_scope.empty() ? symbols::default_binary_scope()
                                     : g_config->binary_scope,
      g_config->source_scope.empty() ? symbols::default_source_scope()
                                     : g_config->source_scope);
  std::vector<std::string> notes;
  // The catalog and its table are used by signal handlers until exit: never
  // destroyed.
  auto* catalog =
      LineCatalog::build(scope, g_config->line_cache, &notes).release();
  for (const auto& n : notes) note(n);
  runtime::TreeSegment* tree = runtime::tree();
  bool started_programs =
      catalog->size() == 0 && tree != nullptr &&
      !runtime::tree_joined_by_exec() &&
      __atomic_load_n(&tree->coordinator_state, __ATOMIC_ACQUIRE) == 3;
  if (catalog->size() == 0 && !started_programs) {
    note(
        "experiments: no in-scope source lines with code; nothing to speed "
        "up (check --binary-scope/--source-scope and build with -g)");
  } else if (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    // The live page's controls (docs/live.md), when `run --live` made the
    // channel.
    std::string control_note;
    // The setting comes from the attach settings file when attached.
    std::unique_ptr<ControlListener> controls = ControlListener::open_file(
        runtime::runtime_setting("ANDWEORC_CONTROL"), &control_note);
    if (!control_note.empty()) note(control_note);
    // Probes from the page are patched here, on this thread.
    if (controls) controls->set_probe_handler(runtime::probes_live_apply);
    if (started_programs) {
      // Also what a program without debug info reads when it starts
      // nothing: both halves of the sentence are said.
      note(
          "experiments: the program's first process has no in-scope source "
          "lines with code (a shell or a launcher; else check "
          "--binary-scope/--source-scope and build with -g); the experiments "
          "run on the programs it starts, if it starts any");
      run_for_started_programs(scope, controls.get());
    } else {
      publish_address_table(catalog->table());
      ExperimentRunner runner(*g_config, *catalog, delay_engine());
      if (controls) runner.set_controls(controls.get());
      std::string problem = runner.run(&g_stop);
      if (!problem.empty()) note(problem);
    }
  }
  runtime::note_runtime_thread_end();
  __atomic_store_n(&g_running, false, __ATOMIC_RELEASE);
  return nullptr;
}

void coordinator_start() {
  if (g_started) return;
  // Leaked on purpose at a second start (attach): the handlers' tables
  // built from the first may still be in use.
  g_config = new CoordinatorConfig(config_from_environment());
  if (!g_config->experiments) return;
  g_started = true;
  sigset_t all, old;
  sigfillset(&all);
  real().pthread_sigmask(SIG_SETMASK, &all, &old);
  // Joinable, so that attach's detach can wait for its exit; nobody else
  // joins it (the process ends with it still running).
  __atomic_store_n(&g_running, true, __ATOMIC_RELEASE);
  if (real().pthread_create(&g_thread, nullptr, coordinator_main, nullptr) !=
      0) {
    __atomic_store_n(&g_running, false, __ATOMIC_RELEASE);
    g_started = false;
  }
  real().pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void coordinator_stop() {
  if (!g_started) return;
  __atomic_store_n(&g_stop, true, __ATOMIC_RELEASE);
  wake_sleeping_runners();
  clear_selection();
  delay_engine().end_experiment();
  // Give the thread a moment to finish an end-to-end record; a catalog still
  // being built is simply abandoned.
  for (int i = 0; i < 50 && __atomic_load_n(&g_running, __ATOMIC_ACQUIRE);
       ++i) {
    timespec ts{0, 2000000};
    nanosleep(&ts, nullptr);
  }
}

// Attach's detach: stop, wait for the thread's exit, ready a later start.
void coordinator_detach() {
  if (!g_started) return;
  coordinator_stop();
  pthread_join(g_thread, nullptr);
  g_started = false;
  __atomic_store_n(&g_stop, false, __ATOMIC_RELEASE);
}

// Priority 101: before the runtime's own (unprioritized) constructor, which
// calls the start hook (coordinator_hook.h).
__attribute__((constructor(101))) void install_hooks() {
  runtime::install_coordinator_hooks(
      {coordinator_start, coordinator_stop, coordinator_detach});
}

}  // namespace
}  // namespace andweorc::coordinator
