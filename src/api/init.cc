// init.cc: andweorc::init / start_profiling (runner.h) and their C forms.
//
// A program that links libandweorc.so loads the runtime before main, but the
// constructor only starts it under `andweorc run` (ANDWEORC_DATA_DIR). Here
// the program starts it itself, when asked to: otherwise init() costs a
// getenv and does nothing.
#include <cstdlib>
#include <cstring>

#include "andweorc/runner.h"
#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/thread_state.h"

namespace andweorc {
namespace {

bool enabled_by_environment() {
  const char* e = std::getenv("ANDWEORC_ENABLED");
  return e != nullptr && std::strcmp(e, "1") == 0;
}

}  // namespace

InitStatus init(const Options& options) {
  if (runtime::runtime_active()) return InitStatus::kAlreadyRunning;
  if (!options.enabled && !enabled_by_environment())
    return InitStatus::kDisabled;
  switch (runtime::runtime_start_linked(uint64_t(options.sample_period.count()),
                                        /*force_timer=*/false)) {
    case runtime::LinkedStart::kStarted:
      return InitStatus::kStarted;
    case runtime::LinkedStart::kAlreadyActive:
      return InitStatus::kAlreadyRunning;
    case runtime::LinkedStart::kShadowed:
      // Unreachable in practice: calls bind to the first copy.
      return InitStatus::kAlreadyRunning;
    case runtime::LinkedStart::kFailed:
      break;
  }
  return InitStatus::kFailed;
}

bool enabled() { return runtime::runtime_active(); }

bool start_profiling() {
  using runtime::ThreadState;
  if (!runtime::runtime_active()) return false;
  ThreadState* s = runtime::current_thread();
  // A new registration starts the sampler and records the thread itself.
  if (s == nullptr) return runtime::register_current_thread() != nullptr;
  // Registered before profiling started (e.g. by a progress point).
  if (s->perf_fd < 0 && !s->has_timer) {
    raw::ThreadRecord tr{uint32_t(s->tid), raw::kThreadStart,
                         runtime::monotonic_ns()};
    runtime::io_lock().lock();
    runtime::raw_write(raw::kThread, &tr, sizeof tr);
    runtime::io_lock().unlock();
    runtime::start_thread_sampler(s);
  }
  return true;
}

}  // namespace andweorc

extern "C" {

int andweorc_init(void) { return int(andweorc::init()); }

int andweorc_init_with(int enabled, uint64_t sample_period_ns) {
  andweorc::Options o;
  o.enabled = enabled != 0;
  o.sample_period = std::chrono::nanoseconds(sample_period_ns);
  return int(andweorc::init(o));
}

int andweorc_start_profiling(void) {
  return andweorc::start_profiling() ? 1 : 0;
}

int andweorc_enabled(void) { return andweorc::enabled() ? 1 : 0; }

}  // extern "C"
