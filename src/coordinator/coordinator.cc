// coordinator.cc: the coordinator thread: builds the line catalog, then runs
// experiments (see experiment_runner.h). Installs itself as the runtime's
// coordinator hooks (runtime/coordinator_hook.h).
#include <pthread.h>
#include <signal.h>
#include <time.h>

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

void* coordinator_main(void*) {
  runtime::note_runtime_thread();  // not a thread of the program
  __atomic_store_n(&g_running, true, __ATOMIC_RELEASE);
  symbols::ScopeMatcher scope(
      g_config->binary_scope.empty() ? symbols::default_binary_scope()
                                     : g_config->binary_scope,
      g_config->source_scope.empty() ? symbols::default_source_scope()
                                     : g_config->source_scope);
  std::vector<std::string> notes;
  // The catalog and its table are used by signal handlers until exit: never
  // destroyed.
  auto* catalog = LineCatalog::build(scope, &notes).release();
  for (const auto& n : notes) note(n);
  if (catalog->size() == 0) {
    note(
        "experiments: no in-scope source lines with code; nothing to speed "
        "up (check --binary-scope/--source-scope and build with -g)");
  } else if (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    publish_address_table(catalog->table());
    ExperimentRunner runner(*g_config, *catalog, delay_engine());
    // The live page's controls (docs/live.md), when `run --live` made the
    // channel.
    std::string control_note;
    // The setting comes from the attach settings file when attached.
    std::unique_ptr<ControlListener> controls = ControlListener::open_file(
        runtime::runtime_setting("ANDWEORC_CONTROL"), &control_note);
    if (!control_note.empty()) note(control_note);
    if (controls) {
      // Probes from the page are patched here, on this thread.
      controls->set_probe_handler(runtime::probes_live_apply);
      runner.set_controls(controls.get());
    }
    std::string problem = runner.run(&g_stop);
    if (!problem.empty()) note(problem);
  }
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
