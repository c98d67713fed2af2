// collector.cc: see collector.h.
#include "runtime/collector.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/address_table.h"
#include "runtime/attach_interpose.h"
#include "runtime/attach_settings.h"
#include "runtime/contention.h"
#include "runtime/early_threads.h"
#include "runtime/probe_live.h"
#include "runtime/progress_points.h"
#include "runtime/raw_writer.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/shared_tree.h"
#include "runtime/trace_calls.h"

namespace andweorc::runtime {
namespace {

constexpr long kPeriodNs = 20 * 1000 * 1000;
constexpr int kPassesPerSnapshot = 25;  // 0.5 s
// In a process tree the coordinator adds up every process's published
// progress-point totals at each experiment's start and end, after asking
// for fresh ones (tree_request_totals); without a request they are
// published every 5 ms.
constexpr long kTreePublishNs = 5 * 1000 * 1000;

bool g_running = false;
// Contention scaling (contention.h): off unless ANDWEORC_CONTENTION=1
// (preempted wait) or =all (wake-up latency too); contention_share.h.
ContentionMode g_contention = ContentionMode::kOff;
bool g_stop = false;
pthread_t g_thread;

void* collector_main(void*) {
  note_runtime_thread();
  int pass = 0;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    if (TreeSegment* t = tree()) {
      // Answer the coordinator's requests for fresh totals at once (it
      // waits for them at each experiment's start and end), and publish at
      // least every 5 ms; drain once per period.
      uint64_t end = monotonic_ns() + kPeriodNs;
      for (uint64_t now = monotonic_ns();
           now < end && !__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE);
           now = monotonic_ns()) {
        uint64_t wait = end - now < uint64_t(kTreePublishNs)
                            ? end - now
                            : uint64_t(kTreePublishNs);
        uint32_t request = tree_wait_for_request(t, wait);
        points_publish_to_tree();
        tree_served(t, request, false);
      }
    } else {
      timespec ts{0, kPeriodNs};
      nanosleep(&ts, nullptr);
    }
    // Only experiments use the CPU shares (the table exists only then).
    if (address_table() != nullptr) update_contention(g_contention);
    // A dlopen since the last snapshot: its maps, and the probes that wait
    // for the library (probe_live.h).
    if (raw_write_maps_if_changed()) probes_load_pending();
    io_lock().lock();
    raw_drain_all_rings();
    trace_drain();  // --trace: finished calls (trace_calls.h)
    const bool snapshot = ++pass % kPassesPerSnapshot == 0;
    if (snapshot) {
      points_write_snapshot();
      write_tree_record();
    }
    io_lock().unlock();
    // Attached, the program's new threads pass through our pthread_create
    // only from objects whose calls were rerouted (attach_interpose.h):
    // look for the others every snapshot period (0.5 s), as at start-up.
    // A thread that lives shorter than that is not profiled.
    if (snapshot && runtime_attached()) {
      prepare_threads_already_running(int(getpid()));
      attach_interpose_sweep();  // libraries loaded since: the wrappers
    }
  }
  return nullptr;
}

}  // namespace

void collector_start() {
  if (g_running) return;
  g_contention = contention_mode(runtime_setting("ANDWEORC_CONTENTION"));
  g_stop = false;
  sigset_t all, old;
  sigfillset(&all);
  real().pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // The program's static TLS (big thread_local arrays) lives on every
  // thread's stack: when 64 KiB cannot hold it, pthread_create fails with
  // EINVAL and no collector would ever run. Grow the stack until it fits.
  for (size_t stack = 64 * 1024; !g_running && stack <= 256 * 1024 * 1024;
       stack *= 4) {
    pthread_attr_setstacksize(&attr, stack);
    g_running =
        real().pthread_create(&g_thread, &attr, collector_main, nullptr) == 0;
  }
  pthread_attr_destroy(&attr);
  real().pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void collector_stop() {
  if (!g_running) return;
  __atomic_store_n(&g_stop, true, __ATOMIC_RELEASE);
  // exit() may run in the collector's own process while it sleeps; joining
  // takes at most one period.
  if (!pthread_equal(pthread_self(), g_thread)) pthread_join(g_thread, nullptr);
  g_running = false;
}

void collector_after_fork_child() {
  g_running = false;
  collector_start();
}

}  // namespace andweorc::runtime
