// runtime.cc: start-up and shut-down of the in-process runtime (which
// sampler: sampler_choice.cc; threads already running: early_threads.cc;
// maps snapshots after dlopen/dlclose: maps_snapshots.cc).
#include "runtime/runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/address_table.h"
#include "runtime/attach_interpose.h"
#include "runtime/attach_points.h"
#include "runtime/attach_settings.h"
#include "runtime/blocking.h"
#include "runtime/collector.h"
#include "runtime/coordinator_hook.h"
#include "runtime/early_threads.h"
#include "runtime/internal_fds.h"
#include "runtime/labels.h"
#include "runtime/perf_sampler.h"
#include "runtime/probe_points.h"
#include "runtime/progress_points.h"
#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/real_functions.h"
#include "runtime/sampler_choice.h"
#include "runtime/shared_tree.h"
#include "runtime/signal_handlers.h"
#include "runtime/thread_state.h"
#include "runtime/timer_sampler.h"

// Marks this copy of the runtime (see another_copy_is_first). The exported
// pointer names a hidden object: the library's own references to an
// exported symbol would be bound to the first copy's, like anyone's.
namespace {
const char g_this_copy = 0;
}
extern "C" {
__attribute__((
    visibility("default"))) extern const void* const andweorc_runtime_instance;
const void* const andweorc_runtime_instance = &g_this_copy;
}

namespace andweorc::runtime {
namespace {

Config g_config;
constinit DelayEngine g_delay_engine;
uint32_t g_sampler = raw::kSamplerNone;
bool g_active = false;
bool g_shut_down = false;
bool g_shadowed = false;  // another copy of the runtime is first in line
SpinLock g_start_lock;
int g_pid = 0;
// This library's file name, for exec_check.h (is it in a new image's
// LD_PRELOAD?). Written once by the constructor, before any thread of ours.
char g_library_name[256] = "";
SpinLock g_io_lock;
// The process whose constructor started the coordinator thread: a fork
// child inherits its flags but not the thread, and must not wait for it.
int g_coordinator_pid = 0;
// Installed by the coordinator before our constructor (coordinator_hook.h).
CoordinatorHooks g_coordinator;
// Threads that found the pool full (note_unprofiled_thread).
uint64_t g_unprofiled_threads = 0;
// The engine's epoch when this process (image or fork child) started, and
// whether an experiment was running then (write_tree_record).
uint32_t g_epoch_at_start = 0;
bool g_joined_running = false;
// Loaded by `andweorc attach` and started by runtime_attach_start (not by
// the constructor); cleared by runtime_attach_stop.
bool g_attached = false;
// Done once per process image whatever the number of starts: a second
// sigaction would record our own handler as the program's, a second
// pthread_atfork would run the fork handlers twice.
bool g_handlers_installed = false;
bool g_flush_installed = false;
bool g_atfork_registered = false;

ANDWEORC_SIGNAL_SAFE void note_start_epoch() {
  g_epoch_at_start = g_delay_engine.epoch();
  g_joined_running = g_delay_engine.running();
}

// Tries io_lock for up to 50 ms. For paths that may run in a signal handler
// (_exit, exec, fork): the holder may be the very thread we interrupted.
ANDWEORC_SIGNAL_SAFE bool lock_io_bounded() {
  uint64_t deadline = monotonic_ns() + 50 * 1000 * 1000;
  for (int i = 0;; ++i) {
    if (g_io_lock.try_lock()) return true;
    if ((i & 63) == 63 && monotonic_ns() > deadline) return false;
    raw_syscall(SYS_sched_yield);
  }
}

// Settings come from the environment, or from the file `andweorc attach`
// wrote (attach_settings.h).
void read_config() {
  const char* dir = runtime_setting("ANDWEORC_DATA_DIR");
  if (dir != nullptr && *dir != '\0' &&
      strlen(dir) < sizeof g_config.data_dir) {
    strcpy(g_config.data_dir, dir);
    g_config.enabled = true;
  }
  if (const char* p = runtime_setting("ANDWEORC_SAMPLE_PERIOD_NS")) {
    char* end = nullptr;
    unsigned long long v = strtoull(p, &end, 10);
    // Below 100 us the kernel throttles task-clock sampling (platform notes).
    if (end != p && v >= 100000) g_config.period_ns = v;
  }
  if (const char* s = runtime_setting("ANDWEORC_SAMPLER")) {
    g_config.timer_chosen_by_tool = strcmp(s, "timer-auto") == 0;
    g_config.force_timer =
        strcmp(s, "timer") == 0 || g_config.timer_chosen_by_tool;
  }
  if (const char* t = runtime_setting("ANDWEORC_PROCESS_TREE"))
    g_config.process_tree = strcmp(t, "0") != 0;
  const char* d = runtime_setting("ANDWEORC_DELAY_MODE");
  g_delay_engine.set_sleeper(d && strcmp(d, "spin") == 0
                                 ? Sleeper{real_spin, nullptr}
                                 : Sleeper{real_sleep, nullptr});
}

// fork may be called from a signal handler that interrupted io_lock's
// holder: the lock is only tried (bounded), never waited for.
bool g_fork_locked = false;
void on_fork_prepare() { g_fork_locked = g_active && lock_io_bounded(); }
void on_fork_parent() {
  if (g_fork_locked) g_io_lock.unlock();
  g_fork_locked = false;
  // Pipes and socketpairs that existed at the fork may now lead to the child
  // (another process): a wake through them is the outside world's. Not in
  // a process tree: the child pays the same global delay count, and pays
  // its debt before it writes, like a thread of ours.
  if (tree() == nullptr) andweorc_fd_clear_marks();
}
void on_fork_child() {
  if (tree() == nullptr || !g_active) andweorc_fd_clear_marks();
  if (!g_active) return;
  if (tree() != nullptr) {
    // A process of the tree: the first process's coordinator selects and
    // delays for it too (shared segment). The wrappers' armed flag is a
    // per-process copy the coordinator cannot reach: pinned on, so they
    // always ask the engine (which returns at once when no delay is owed).
    __atomic_add_fetch(&andweorc_rt_delays_armed[0], 1 << 20, __ATOMIC_RELEASE);
    tree_after_fork_child();
  } else {
    // The coordinator thread does not exist in the child: no experiment may
    // stay selected there, or its threads would be delayed forever. The
    // child is sampled; experiments run in the original process only.
    clear_selection();
    g_delay_engine.end_experiment();
  }
  g_io_lock.reset_after_fork();
  note_start_epoch();
  g_pid = int(getpid());
  // Resets the progress-point locks before anything takes them (another
  // thread of the parent may have held one at the fork).
  counters_reset_all();
  thread_states_after_fork_child();
  probes_after_fork_child();  // after the parent's threads are retired
  raw_close();
  // A linked program's records live in a memory file only its Runner reads;
  // a child has no Runner, so it is not profiled.
  if (g_config.data_dir[0] == '\0' ||
      !raw_open(g_config.data_dir, g_sampler, g_config.period_ns)) {
    g_active = false;
    // Not profiled: its slot in the tree must not be waited for.
    if (TreeSegment* t = tree()) tree_served(t, 0, true);
    return;
  }
  raw_write_maps();
  labels_after_fork_child();
  if (ThreadState* self = current_thread()) start_thread_sampler(self);
  collector_after_fork_child();
  if (tree() != nullptr) tree_follower_after_fork();
}

// Everything but the configuration: handlers, the calling thread's sampler,
// raw output, collector. An empty data_dir means an anonymous memory file
// (linked mode, read back by the Runner).
bool start_runtime() {
  note_start_epoch();
  // Under `andweorc run`, before any thread uses the engine or the table:
  // the state fork children will share (shared_tree.h).
  if (g_config.data_dir[0] != '\0' && g_config.process_tree) {
    if (TreeSegment* t = tree_join_inherited()) {
      // An image exec'd in a profiled tree: the tree's experiments and its
      // coordinator's selection, as in a fork child (on_fork_child).
      g_delay_engine.join_shared(&t->engine);
      join_shared_selection(&t->selection);
      __atomic_add_fetch(&andweorc_rt_delays_armed[0], 1 << 20,
                         __ATOMIC_RELEASE);
      tree_my_process(t);
      note_start_epoch();
    } else if (TreeSegment* t = tree_create()) {
      g_delay_engine.attach_shared(&t->engine);
      attach_shared_selection(&t->selection);
    }
  }
  if (!g_handlers_installed) {
    if (!install_profiler_handler()) {
      fprintf(stderr,
              "andweorc: cannot install the SIGPROF handler; "
              "not profiling\n");
      return false;
    }
    g_handlers_installed = true;
  }
  ThreadState* main_thread = register_current_thread();
  if (main_thread == nullptr) return false;
  char fallback[512];  // why perf is not used, once the raw file is open
  g_sampler =
      choose_process_sampler(main_thread, g_config, fallback, sizeof fallback);
  if (!raw_open(g_config.data_dir, g_sampler, g_config.period_ns)) {
    fprintf(stderr, "andweorc: cannot write to %s: %s; not profiling\n",
            g_config.data_dir[0] ? g_config.data_dir : "a memory file",
            strerror(errno));
    perf_stop(main_thread);
    return false;
  }
  if (fallback[0] != '\0') raw_write_note(fallback);
  remember_loaded_objects();
  raw_write_maps();
  raw::ThreadRecord tr{uint32_t(main_thread->tid), raw::kThreadStart,
                       monotonic_ns()};
  raw_write(raw::kThread, &tr, sizeof tr);
  __atomic_store_n(&g_active, true, __ATOMIC_RELEASE);
  if (g_sampler == raw::kSamplerPerf)
    main_thread->sampler = raw::kSamplerPerf;
  else
    start_thread_sampler(main_thread);
  if (int missed = prepare_threads_already_running(g_pid)) {
    char note[400];
    snprintf(note, sizeof note,
             "threads: %d thread(s) were already running when the profiler "
             "started (started by another library's constructor, e.g. a "
             "thread pool) and could not be given a sampler; they are "
             "neither sampled nor delayed, so their work is missing from "
             "this profile",
             missed);
    g_io_lock.lock();
    raw_write_note(note);
    g_io_lock.unlock();
  }
  if (!g_flush_installed) install_flush_handlers();
  g_flush_installed = true;
  if (!g_atfork_registered)
    pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
  g_atfork_registered = true;
  collector_start();
  return true;
}

// The first definition in the program's symbol lookup order wins every
// interposed call. When another copy of the runtime comes before this one
// (e.g. a different libandweorc preloaded into a program that links this
// one), this copy must stay inert: two runtimes would fight over SIGPROF.
bool another_copy_is_first() {
  auto* first = static_cast<const void* const*>(
      dlsym(RTLD_DEFAULT, "andweorc_runtime_instance"));
  return first != nullptr && *first != &g_this_copy;
}

// The file name of the object holding this code (dladdr: not signal-safe,
// start-up only).
void find_library_name() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&find_library_name), &info) == 0 ||
      info.dli_fname == nullptr)
    return;
  const char* base = strrchr(info.dli_fname, '/');
  base = base != nullptr ? base + 1 : info.dli_fname;
  append_str(g_library_name, sizeof g_library_name, 0, base);
}

__attribute__((constructor)) void andweorc_runtime_init() {
  resolve_real_functions();
  g_pid = int(getpid());
  find_library_name();
  if (another_copy_is_first()) {
    g_shadowed = true;
    return;
  }
  read_config();
  if (!g_config.enabled) return;
  if (start_runtime()) {
    probes_start();  // before the program's threads: they inherit the events
    if (tree_joined_by_exec()) {
      tree_start_follower();  // the tree's coordinator runs elsewhere
    } else {
      g_coordinator_pid = g_pid;
      if (g_coordinator.start != nullptr) g_coordinator.start();
    }
  }
}

__attribute__((destructor)) void andweorc_runtime_fini() { runtime_shutdown(); }

}  // namespace

const Config& config() { return g_config; }

void install_coordinator_hooks(const CoordinatorHooks& hooks) {
  g_coordinator = hooks;
}

LinkedStart runtime_start_linked(uint64_t period_ns, bool force_timer) {
  if (g_shadowed) return LinkedStart::kShadowed;
  g_start_lock.lock();
  LinkedStart result = LinkedStart::kAlreadyActive;
  if (!runtime_active() && !g_shut_down) {
    // ANDWEORC_DATA_DIR is not set (the constructor would have started):
    // the records go to a memory file.
    g_config.data_dir[0] = '\0';
    if (period_ns >= 100000) g_config.period_ns = period_ns;
    g_config.force_timer = g_config.force_timer || force_timer;
    result = start_runtime() ? LinkedStart::kStarted : LinkedStart::kFailed;
  }
  g_start_lock.unlock();
  return result;
}

void write_final_records();  // below: the same end as at exit

AttachStart runtime_attach_start(const char* settings_path) {
  if (g_shadowed) return AttachStart::kShadowed;
  g_start_lock.lock();
  AttachStart result = AttachStart::kStarted;
  if (runtime_active()) {
    result = g_attached ? AttachStart::kAlreadyAttached
                        : AttachStart::kAlreadyActive;
  } else if (g_shut_down) {
    result = AttachStart::kFailed;  // the process is exiting
  } else if (!attach_settings_load(settings_path)) {
    result = AttachStart::kBadSettings;
  } else {
    g_config = Config{};
    read_config();
    // A fork child of an attached process is sampled alone: the shared
    // segment of a process tree is made before any fork, at start-up.
    g_config.process_tree = false;
    if (!g_config.enabled) {
      result = AttachStart::kBadSettings;
    } else {
      g_attached = true;
      if (start_runtime()) {
        probes_start();
        attach_interpose_start();
        revive_header_points_with_note();
        g_coordinator_pid = g_pid;
        if (g_coordinator.start != nullptr) g_coordinator.start();
      } else {
        g_attached = false;
        result = AttachStart::kFailed;
      }
    }
  }
  g_start_lock.unlock();
  return result;
}

bool runtime_attach_stop() {
  g_start_lock.lock();
  if (!g_attached || !runtime_active()) {
    g_start_lock.unlock();
    return false;
  }
  // Experiments end (no thread stays delayed), then our threads exit and
  // are joined, then the samplers stop; what they took is written and the
  // file closed. Only then are the per-thread events released: no handler
  // can be reading their rings (release_thread_samplers). The wrappers go
  // out of the program's calls first, so none is entered once it ends.
  attach_interpose_stop();
  if (g_coordinator.detach != nullptr) g_coordinator.detach();
  collector_stop();
  stop_all_samplers();
  g_io_lock.lock();
  write_final_records();
  __atomic_store_n(&g_active, false, __ATOMIC_RELEASE);
  raw_close();
  g_io_lock.unlock();
  release_thread_samplers();
  g_attached = false;
  g_start_lock.unlock();
  return true;
}

bool runtime_attached() { return g_attached; }

namespace {
// Our threads of the current start (a later start's replace the joined
// ones): few, so a linear scan. A thread stores its CPU time in `cpu_ns`
// as it ends (then its tid may be reused by the kernel: a slot with cpu_ns
// set is no longer looked up as running).
constexpr int kOwnThreads = 8;
struct OwnThread {
  int tid;
  uint64_t cpu_ns;  // 0 while it runs
};
OwnThread g_own[kOwnThreads];
// CPU time of ended threads whose slots were taken again (attach cycles).
uint64_t g_own_reused_cpu_ns = 0;

}  // namespace

void note_runtime_thread(const char* name) {
  raw_syscall(SYS_prctl, PR_SET_NAME, long(name));
  int tid = current_tid();
  for (int i = 0; i < kOwnThreads; ++i) {
    int slot = __atomic_load_n(&g_own[i].tid, __ATOMIC_ACQUIRE);
    // Empty, or a thread of ours that has exited (joined at a detach).
    if (slot == 0 || raw_syscall(SYS_tgkill, g_pid, slot, 0) != 0) {
      // (A fork child finds its parent's threads here: none ended here.)
      if (slot != 0)
        __atomic_add_fetch(&g_own_reused_cpu_ns,
                           __atomic_load_n(&g_own[i].cpu_ns, __ATOMIC_ACQUIRE),
                           __ATOMIC_RELAXED);
      __atomic_store_n(&g_own[i].cpu_ns, 0, __ATOMIC_RELEASE);
      __atomic_store_n(&g_own[i].tid, tid, __ATOMIC_RELEASE);
      return;
    }
  }
}

void note_runtime_thread_end() {
  int tid = current_tid();
  uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < kOwnThreads; ++i)
    if (__atomic_load_n(&g_own[i].tid, __ATOMIC_ACQUIRE) == tid)
      __atomic_store_n(&g_own[i].cpu_ns, cpu > 0 ? cpu : 1, __ATOMIC_RELEASE);
}

uint64_t runtime_threads_cpu() {
  uint64_t sum = __atomic_load_n(&g_own_reused_cpu_ns, __ATOMIC_RELAXED);
  for (int i = 0; i < kOwnThreads; ++i) {
    int tid = __atomic_load_n(&g_own[i].tid, __ATOMIC_ACQUIRE);
    if (tid == 0) continue;
    uint64_t cpu = __atomic_load_n(&g_own[i].cpu_ns, __ATOMIC_ACQUIRE);
    // Running: its clock. A thread that ended meanwhile stored its time
    // first; one that ended without a word has no clock left (0).
    if (cpu == 0) cpu = clock_ns(thread_cpu_clock(tid));
    if (cpu == 0) cpu = __atomic_load_n(&g_own[i].cpu_ns, __ATOMIC_ACQUIRE);
    sum += cpu;
  }
  return sum;
}

bool is_runtime_thread(int tid) {
  for (int i = 0; i < kOwnThreads; ++i)
    if (__atomic_load_n(&g_own[i].tid, __ATOMIC_ACQUIRE) == tid &&
        __atomic_load_n(&g_own[i].cpu_ns, __ATOMIC_ACQUIRE) == 0)
      return true;
  return false;
}

ANDWEORC_SIGNAL_SAFE bool runtime_started_by_tool() {
  return runtime_active() && g_config.data_dir[0] != '\0';
}
ANDWEORC_SIGNAL_SAFE const char* runtime_library_name() {
  return g_library_name;
}
ANDWEORC_SIGNAL_SAFE void runtime_write_note_bounded(const char* text) {
  if (!runtime_active() || !lock_io_bounded()) return;
  if (raw_is_open()) raw_write_note(text);
  g_io_lock.unlock();
}
ANDWEORC_SIGNAL_SAFE uint32_t sampler_kind() { return g_sampler; }
ANDWEORC_SIGNAL_SAFE bool runtime_active() {
  return __atomic_load_n(&g_active, __ATOMIC_ACQUIRE);
}
SpinLock& io_lock() { return g_io_lock; }
ANDWEORC_SIGNAL_SAFE ANDWEORC_RT_HOT DelayEngine& delay_engine() {
  return g_delay_engine;
}
ANDWEORC_SIGNAL_SAFE bool is_original_process() {
  return int(getpid()) == g_pid;
}

ANDWEORC_SIGNAL_SAFE void write_tree_record() {
  raw::TreeRecord tr{
      g_delay_engine.epoch() - g_epoch_at_start + (g_joined_running ? 1 : 0),
      0};
  if (TreeSegment* t = tree()) {
    tr.flags |= raw::kTreeMember;
    if (__atomic_load_n(&t->points_full, __ATOMIC_RELAXED))
      tr.flags |= raw::kTreePointsFull;
    if (__atomic_load_n(&t->processes_full, __ATOMIC_RELAXED))
      tr.flags |= raw::kTreeProcessesFull;
  }
  raw_write(raw::kTree, &tr, sizeof tr);
}

// Everything this process image has, ending with the end record. Caller
// holds io_lock.
void write_final_records() {
  // The last totals count in the tree's sums; not waited for again.
  points_publish_to_tree();
  if (TreeSegment* t = tree())
    tree_served(t, __atomic_load_n(&t->publish_request, __ATOMIC_ACQUIRE),
                true);
  raw_drain_all_rings();
  if (uint64_t n = __atomic_load_n(&g_unprofiled_threads, __ATOMIC_RELAXED)) {
    char note[300] = "threads: ";
    size_t len = strlen(note);
    len += format_u64(n, note + len, sizeof note - len - 1);
    note[len] = '\0';
    append_str(note, sizeof note, len,
               " thread(s) were neither sampled nor delayed and their "
               "progress points not counted: more threads than the "
               "profiler's pool holds were alive at once");
    raw_write_note(note);
  }
  points_write_snapshot();
  write_tree_record();
  probes_write_final_note();
  raw_write_maps();
  raw::CostRecord cost{};
  cost.process_cpu_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  cost.runtime_cpu_ns = runtime_threads_cpu();
  raw_write(raw::kCost, &cost, sizeof cost);
  raw::EndRecord end{monotonic_ns()};
  raw_write(raw::kEnd, &end, sizeof end);
}

void note_unprofiled_thread() {
  __atomic_add_fetch(&g_unprofiled_threads, 1, __ATOMIC_RELAXED);
}

void runtime_shutdown() {
  if (!runtime_active() || !is_original_process()) return;
  if (__atomic_exchange_n(&g_shut_down, true, __ATOMIC_ACQ_REL)) return;
  if (g_pid == g_coordinator_pid && g_coordinator.stop != nullptr)
    g_coordinator.stop();
  collector_stop();
  stop_all_samplers();
  g_io_lock.lock();
  write_final_records();
  __atomic_store_n(&g_active, false, __ATOMIC_RELEASE);
  raw_close();
  g_io_lock.unlock();
}

ANDWEORC_SIGNAL_SAFE void runtime_shutdown_now() {
  if (!runtime_active() || !is_original_process()) return;
  if (__atomic_exchange_n(&g_shut_down, true, __ATOMIC_ACQ_REL)) return;
  // No joins and no waiting: the process ends right after this, taking the
  // collector and coordinator threads with it. An experiment still running
  // is simply not recorded. Only the coordinator's process ends it: in a
  // process tree the experiment is every process's.
  if (g_pid == g_coordinator_pid) delay_engine().end_experiment();
  stop_all_samplers();
  bool locked = lock_io_bounded();
  if (locked) write_final_records();
  __atomic_store_n(&g_active, false, __ATOMIC_RELEASE);
  if (locked) g_io_lock.unlock();
}

ANDWEORC_SIGNAL_SAFE void runtime_emergency_flush() {
  if (!runtime_active() || !is_original_process()) return;
  // If the lock is held (the crash is inside a drain), writing now could
  // corrupt the record being written: give up rather than make it worse.
  for (int i = 0; i < 1000; ++i) {
    if (g_io_lock.try_lock()) {
      raw_drain_all_rings();
      points_write_snapshot();
      raw_write_maps();
      g_io_lock.unlock();
      return;
    }
  }
}

void runtime_before_exec() {
  // The new image starts its own runtime and raw file; write everything this
  // one has. The file stays open (it is O_CLOEXEC) in case exec fails.
  if (!runtime_active() || !is_original_process()) return;
  if (!lock_io_bounded()) return;
  write_final_records();
  g_io_lock.unlock();
}

void runtime_before_dlclose() {
  // A vfork child shares our memory but writes nothing; before start-up and
  // after shutdown there is no file.
  if (!runtime_active() || !is_original_process()) return;
  g_io_lock.lock();
  if (runtime_active() && raw_is_open()) raw_write_maps();
  g_io_lock.unlock();
}

}  // namespace andweorc::runtime

extern "C" {
int andweorc_io_lock_bounded(void) {
  return andweorc::runtime::lock_io_bounded() ? 1 : 0;
}
void andweorc_io_unlock(void) { andweorc::runtime::io_lock().unlock(); }
int andweorc_is_original_process(void) {
  return andweorc::runtime::is_original_process() ? 1 : 0;
}
}
