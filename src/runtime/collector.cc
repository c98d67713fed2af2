// collector.cc: see collector.h.
#include "runtime/collector.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

// Rings are drained once per period: a 128 KiB ring holds ~0.5 s of a
// thread's samples at 1 ms, and every wake-up takes a core from the program
// for a moment (issue 11). collector_stop wakes it at once.
constexpr long kPeriodNs = 50 * 1000 * 1000;
constexpr int kPassesPerSnapshot = 10;  // 0.5 s

bool g_running = false;
// Contention scaling (contention.h): off unless ANDWEORC_CONTENTION=1
// (preempted wait) or =all (wake-up latency too); contention_share.h.
ContentionMode g_contention = ContentionMode::kOff;
bool g_stop = false;
// What the collector sleeps on outside a process tree; collector_stop
// wakes it (in a tree it sleeps on the tree's request word, woken the same
// way).
uint32_t g_sleep_word = 0;
pthread_t g_thread;

void* collector_main(void*) {
  note_runtime_thread("andweorc-drain");
  int pass = 0;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    if (TreeSegment* t = tree()) {
      // In a process tree the coordinator adds up every process's
      // progress-point totals at each experiment's start and end, after
      // asking for fresh ones (tree_request_totals): answer each request at
      // once, and publish once per period besides (what a process killed
      // before it could answer leaves behind). Each wake-up costs the
      // program a core for a moment (issue 11): none without a request.
      uint64_t end = monotonic_ns() + kPeriodNs;
      for (uint64_t now = monotonic_ns();
           now < end && !__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE);
           now = monotonic_ns()) {
        uint32_t request = tree_wait_for_request(t, end - now);
        points_publish_to_tree();
        tree_served(t, request, false);
      }
    } else {
      // The word is read before the flag: a stop in between changes it,
      // and the wait returns at once.
      uint32_t seen = __atomic_load_n(&g_sleep_word, __ATOMIC_ACQUIRE);
      if (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE))
        futex_wait(&g_sleep_word, seen, kPeriodNs, /*shared=*/false);
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
  note_runtime_thread_end();
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
  // exit() may run in the collector's own process while it sleeps: wake it
  // by changing the word it sleeps on. In a tree that word is the tree's
  // request for fresh totals: the other processes' collectors answer an
  // extra request, harmless.
  __atomic_add_fetch(&g_sleep_word, 1, __ATOMIC_ACQ_REL);
  futex_wake_all(&g_sleep_word, /*shared=*/false);
  if (TreeSegment* t = tree()) tree_request_totals(t, int32_t(getpid()), 0);
  if (!pthread_equal(pthread_self(), g_thread)) pthread_join(g_thread, nullptr);
  g_running = false;
}

void collector_after_fork_child() {
  g_running = false;
  collector_start();
}

}  // namespace andweorc::runtime
