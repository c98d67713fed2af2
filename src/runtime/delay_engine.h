// delay_engine.h: virtual speed-up by delaying other threads (Coz's method).
//
// While an experiment runs, every sample that hits the selected code adds
// `delay_per_hit` (= speedup x sample period) to a process-wide `global`
// count and to the hitting thread's own `local` count. Every thread whose
// local count is behind global "owes" the difference and pays it by
// sleeping, inside its sample handler or before it wakes another thread. The
// actual sleep is measured and any oversleep is kept as credit (local may run
// ahead of global), because sleeps overshoot by tens of microseconds, and by
// milliseconds when the machine is oversubscribed.
//
// Inheritance rules (the correctness core):
//  - pre_block / post_block(woken_by_thread = true): a thread woken by
//    another thread is credited with the delays inserted while it was
//    blocked, since its waker paid them before waking it. A debt it carried
//    into the wait is absorbed by the wait, up to the time it spent blocked:
//    had it paid first, it would have waited that much less (Coz leaves the
//    debt to be paid later, often while holding the very lock it waited for,
//    which is why it under-estimates lock-bound code).
//  - post_block(false): woken by a timeout or the outside world (I/O), the
//    thread pays what it missed.
//  - catch_up before waking another thread (unlock, signal, post, write).
//  - a new thread starts with its creator's local count.
//  - when a new experiment starts (epoch changes), a thread's unpaid debt or
//    unused credit from the previous experiment is dropped the first time the
//    thread touches the engine (it owes exactly the delays inserted since the
//    new experiment began): experiments do not leak into each other.
//
// Process trees (docs/design.md, "Process trees"): the experiment state
// every process must see (global count, delay per hit, epoch, hits, whether
// an experiment runs, until when) is an ExperimentShared, which the engine
// keeps inside itself or, under `andweorc run`, in a MAP_SHARED segment a
// fork child inherits (attach_shared). Then a hit in any process of the
// tree delays the threads of every process, and the coordinator of the
// first process starts and ends the experiments for all of them. Every field
// is a lock-free atomic (x86-64: plain loads/stores and locked adds), so the
// signal handlers of all processes may use it at once.
//
// All member functions except the coordinator's are ANDWEORC_SIGNAL_SAFE:
// atomics, and the injected sleeper (nanosleep + clock_gettime in
// production). The sleeper and clock are injected so the rules above are
// unit-tested deterministically.
#ifndef ANDWEORC_RUNTIME_DELAY_ENGINE_H_
#define ANDWEORC_RUNTIME_DELAY_ENGINE_H_

#include <stdint.h>

#include "runtime/delay_credit.h"
#include "runtime/delay_ramp.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// Per-thread accounting; owned by its thread (lives in ThreadState).
// Its thread's signal handler may interrupt any operation on it. Each
// operation reads several fields and writes others from what it read: a
// handler that paid or synced in between made those reads stale, and the
// debt was then paid or credited twice (issue 12 item 13). So an operation
// marks the account `busy`; an operation that finds it busy (the thread's
// own handler, or a program signal handler that waits or wakes) leaves the
// account alone: a sample's hits go to `deferred_hits`, which the
// interrupted operation adds before it clears `busy`, and debts are paid at
// the next operation.
//
// Its first cache line holds what the wrappers' check reads (settled):
// written by its own thread only (the collector writes `scale`, further
// on), and never split over two lines.
struct ExperimentShared;
struct alignas(64) DelayAccount {
  uint64_t local = 0;  // delay paid or credited, ns
  // The engine's shared state as of the last sync (sync_epoch), so that the
  // check need not read the engine object: one cache line less.
  const ExperimentShared* shared = nullptr;
  uint32_t epoch = 0;           // experiment this account is synced to
  uint32_t in_delay = 0;        // a catch_up is sleeping right now
  uint32_t busy = 0;            // an engine operation is under way
  uint64_t deferred_hits = 0;   // hits counted by a handler while busy
  uint64_t blocked_global = 0;  // global count when the thread blocked
  uint64_t debt_at_block = 0;   // what it owed when it blocked
  // The global count at this thread's previous sample, and whether another
  // thread woke it since: then a sample pays only what was owed at the
  // previous one (refinement 7, on_samples).
  uint64_t sample_global = 0;
  uint32_t woken_since_sample = 0;
  // CLOCK_MONOTONIC time the current delay began (valid while in_delay):
  // samples taken after it are the profiler's time, not the program's.
  uint64_t delay_started_ns = 0;
  // Delay per hit is scaled by this / 1024: 1024 / (the thread's recent CPU
  // share). A preempted thread spends longer in a line than its CPU samples
  // say; a real speed-up would save that wall time. Set by the collector.
  uint32_t scale = 1024;
  uint64_t paid = 0;  // total sleep in this thread, for reports
  // The ramp this thread's hits release their delay through (delay_ramp.h).
  RampClaim ramp;
  // Lump credit (delay_credit.h): this account's id in the lump log (0:
  // none yet), the instant count up to which lumps were looked at, when the
  // current block began (also read to pay a debt carried into the wait;
  // 0: neither credit nor a debt needed the clock), and the recent blocked
  // spans ended by a wake-up.
  uint32_t lump_id = 0;
  uint64_t lumps_seen = 0;
  uint64_t block_began_ns = 0;
  BlockedSpans spans;
};

// Sleeps about `ns`; returns how long it really slept (measured).
struct Sleeper {
  uint64_t (*sleep)(void* ctx, uint64_t ns);
  void* ctx;
};

// nanosleep in a loop, measured with CLOCK_MONOTONIC.
ANDWEORC_SIGNAL_SAFE uint64_t real_sleep(void* ctx, uint64_t ns);
// Busy-waits on CLOCK_MONOTONIC (vDSO, no syscall). The waiting thread keeps
// its CPU share, as the work it stands in for would have: when threads
// outnumber cores, a sleeping thread hands its core to the others and the
// delay costs the program less than intended. Spinning uses CPU time, so the
// profiler signal is unblocked meanwhile (it is blocked when the delay is
// paid inside the sample handler): its samples then arrive during the delay,
// where the handler recognizes and drops them, instead of right after it,
// where they would be counted as the program's (and as hits).
ANDWEORC_SIGNAL_SAFE uint64_t real_spin(void* ctx, uint64_t ns);

// The experiment state shared by every process of a tree (see above). A
// plain struct of atomics: valid zero-initialized, in any mapping.
//
// The first cache line holds all that catch_up reads when nothing is owed:
// the check before every lock, unlock and write during experiments, 0% ones
// included. A server's syscalls and data evict the runtime's lines between
// two such calls, so each line read there is a miss: spread over several
// lines (and five code pages), the check put 12.7% of memcached's workers'
// samples in the runtime during experiments (docs/design.md, cost model).
struct alignas(64) ExperimentShared {
  uint64_t global = 0;  // atomic; monotone
  uint32_t epoch = 0;   // atomic
  uint32_t active = 0;  // atomic; an experiment is running
  // atomic; 1 once some ramp was claimed (a copy of ramps.used != 0,
  // which never goes back to 0, so that the check need not read `ramps`,
  // further away): global() must then add what ramps released.
  uint32_t ramps_in_use = 0;
  uint64_t delay_per_hit = 0;  // atomic; 0 outside experiments
  uint64_t start_global = 0;   // atomic; global when the epoch began
  // atomic; CLOCK_MONOTONIC time after which hits add no delay (0: none).
  // The coordinator's lease: if its process dies mid-experiment (SIGKILL),
  // the other processes stop inserting delays at this time instead of
  // delaying each other for ever.
  uint64_t expires_ns = 0;
  // atomic; written at every hit, so kept off the first line.
  alignas(64) uint64_t hits = 0;
  // Hits release their delay over the time their samples stand for
  // (delay_ramp.h); `global` above is the part that entered at once.
  RampSet ramps;
  // The lumps that entered `global`, with the time each stands for, so that
  // threads blocked meanwhile are credited (delay_credit.h).
  LumpLog lumps;
};

class DelayEngine {
 public:
  // constexpr, so that the runtime's engine is constant-initialized
  // (`constinit` in runtime.cc): a dynamic initializer would run after the
  // runtime's constructor and undo the sleeper it chose (--delay-mode spin
  // was silently ignored that way, issue 12 item 4).
  constexpr explicit DelayEngine(Sleeper sleeper = Sleeper{real_sleep, nullptr},
                                 uint64_t (*clock)() = monotonic_ns)
      : s_(&own_), sleeper_(sleeper), clock_(clock) {}
  DelayEngine(const DelayEngine&) = delete;
  DelayEngine& operator=(const DelayEngine&) = delete;

  // Chosen once at start-up, before any thread uses the engine.
  void set_sleeper(Sleeper sleeper) { sleeper_ = sleeper; }
  // Uses `shared` (which must outlive the engine; e.g. a MAP_SHARED segment)
  // instead of the engine's own state, carrying the current state over.
  // Start-up only, before any other thread uses the engine.
  void attach_shared(ExperimentShared* shared);
  // Uses `shared` as it is (an exec'd image joining a process tree whose
  // experiments are under way: nothing of this fresh engine is carried).
  void join_shared(ExperimentShared* shared) {
    if (shared != nullptr) __atomic_store_n(&s_, shared, __ATOMIC_RELEASE);
  }
  bool is_shared() const { return s_ != &own_; }

  // --- Per-thread operations (the owning thread; signal-safe). ---
  // `hits` samples of this thread hit the selection; then pays any debt.
  ANDWEORC_SIGNAL_SAFE void on_samples(DelayAccount& a, uint64_t hits);
  // Pays what the thread owes now. Returns the nanoseconds slept. Inline:
  // the wrappers call it before every lock, unlock and write during
  // experiments, and nothing is owed nearly every time.
  ANDWEORC_SIGNAL_SAFE uint64_t catch_up(DelayAccount& a) {
    return nothing_owed(a) ? 0 : catch_up_owed(a);
  }
  // catch_up's check (nothing_owed), from the account alone (its `shared`), for
  // the wrappers: no read of the engine object. False whenever it cannot tell
  // (never synced, no experiment, ramps in use: their release needs the
  // clock), and the caller then asks the engine.
  ANDWEORC_SIGNAL_SAFE static bool settled(const DelayAccount& a) {
    const ExperimentShared* s = __atomic_load_n(&a.shared, __ATOMIC_RELAXED);
    return s != nullptr && __atomic_load_n(&s->active, __ATOMIC_ACQUIRE) != 0 &&
           __atomic_load_n(&s->ramps_in_use, __ATOMIC_ACQUIRE) == 0 &&
           owes_nothing(*s, a, __atomic_load_n(&s->global, __ATOMIC_ACQUIRE));
  }
  // Whether catch_up would have anything to pay now (reads only; false
  // right after a new experiment began, before the account synced).
  ANDWEORC_SIGNAL_SAFE bool owes(const DelayAccount& a) const {
    return __atomic_load_n(&a.epoch, __ATOMIC_RELAXED) == epoch() &&
           sleep_owed(global(), __atomic_load_n(&a.local, __ATOMIC_RELAXED)) !=
               0;
  }
  ANDWEORC_SIGNAL_SAFE void pre_block(DelayAccount& a);
  ANDWEORC_SIGNAL_SAFE void post_block(DelayAccount& a, bool woken_by_thread);
  // A new thread's account, made by its creator before the thread starts.
  ANDWEORC_SIGNAL_SAFE void inherit(DelayAccount& child,
                                    const DelayAccount& parent) const;
  // A work item handed between threads carries its producer's count; the
  // consumer adopts it (never moving backwards: the larger count wins).
  ANDWEORC_SIGNAL_SAFE uint64_t token(const DelayAccount& a) const;
  ANDWEORC_SIGNAL_SAFE void adopt(DelayAccount& a, uint64_t token);

  // --- Coordinator (one thread). ---
  // Starts an experiment: a new epoch with `delay_per_hit` ns per hit.
  // Hits after `expires_ns` (the clock's time; 0: never) add nothing.
  // `window_per_hit`: the wall time one hit stands for (the sample period);
  // a hit's delay is released over that many ns per hit (delay_ramp.h). 0:
  // at once, as Coz does. What a ramp has not released when the experiment
  // ends is dropped. `credit_window_per_hit`: the same for lumps (delays
  // that enter at once): threads blocked within that window of a hit are
  // credited with their share (delay_credit.h); 0: Coz's rule.
  void start_experiment(uint64_t delay_per_hit, uint64_t expires_ns = 0,
                        uint64_t window_per_hit = 0,
                        uint64_t credit_window_per_hit = 0);
  // Moves the running experiment's expiry (the coordinator's lease).
  void renew(uint64_t expires_ns);
  // Stops adding delays; debts are still paid until the next start.
  void end_experiment();
  // The delay inserted so far: what entered at once plus what the ramps
  // have released by now (so it grows with time during an experiment).
  ANDWEORC_SIGNAL_SAFE uint64_t global() const {
    const ExperimentShared* s = s_;
    uint64_t g = __atomic_load_n(&s->global, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&s->ramps_in_use, __ATOMIC_ACQUIRE) == 0) return g;
    return g + ramp_total(s->ramps, clock_());
  }
  ANDWEORC_SIGNAL_SAFE uint64_t delay_per_hit() const {
    return __atomic_load_n(&s_->delay_per_hit, __ATOMIC_ACQUIRE);
  }
  // Experiments started so far, and whether one runs now.
  ANDWEORC_SIGNAL_SAFE uint32_t epoch() const {
    return __atomic_load_n(&s_->epoch, __ATOMIC_ACQUIRE);
  }
  ANDWEORC_SIGNAL_SAFE bool running() const {
    return __atomic_load_n(&s_->active, __ATOMIC_ACQUIRE) != 0;
  }
  // Hits counted since the experiment started.
  uint64_t hits() const { return __atomic_load_n(&s_->hits, __ATOMIC_ACQUIRE); }

 private:
  // enter() is false when an operation of this thread is already under way
  // (we interrupted it); leave() adds deferred hits, then clears busy.
  ANDWEORC_SIGNAL_SAFE static bool enter(DelayAccount& a);
  ANDWEORC_SIGNAL_SAFE void leave(DelayAccount& a);
  // Keeps andweorc_rt_delays_armed (blocking.h) in step with delay_per_hit_.
  static void note_armed(uint64_t before, uint64_t after);
  ANDWEORC_SIGNAL_SAFE void sync_epoch(DelayAccount& a);
  ANDWEORC_SIGNAL_SAFE void add_hits(DelayAccount& a, uint64_t hits);
  // Pays what the account owes up to the global count `upto`.
  ANDWEORC_SIGNAL_SAFE uint64_t pay(DelayAccount& a,
                                    uint64_t upto = UINT64_MAX);
  // catch_up's fast path: reads only, and only the first line of the
  // shared state and the account's first line. A handler landing in between
  // changes nothing relied on: its hits raise the global count and this
  // account alike, its payments only lower the debt; the full path would
  // have found nothing owed at the same instant. A new experiment (the
  // account must sync) or a debt take the full path. Lump credit needs no
  // test of its own: a lump not yet credited to this thread is in `global`
  // and not in `local`, a debt of at least kMinSleepNs (a lump is a hit's
  // whole delay, 50 us and more), so the full path takes the credit.
  ANDWEORC_SIGNAL_SAFE bool nothing_owed(const DelayAccount& a) const {
    return owes_nothing(*s_, a, global());
  }
  // The rule of both checks, the global count being `g`: no operation of
  // the thread under way, synced to this experiment, no debt to sleep.
  ANDWEORC_SIGNAL_SAFE static bool owes_nothing(const ExperimentShared& s,
                                                const DelayAccount& a,
                                                uint64_t g) {
    return __atomic_load_n(&a.busy, __ATOMIC_RELAXED) == 0 &&
           __atomic_load_n(&a.epoch, __ATOMIC_RELAXED) ==
               __atomic_load_n(&s.epoch, __ATOMIC_ACQUIRE) &&
           sleep_owed(g, __atomic_load_n(&a.local, __ATOMIC_RELAXED)) == 0;
  }
  ANDWEORC_SIGNAL_SAFE uint64_t catch_up_owed(DelayAccount& a);
  // Credits the lumps posted since the account last looked (delay_credit.h).
  ANDWEORC_SIGNAL_SAFE void take_lump_credit(DelayAccount& a);

  // &own_ or the tree's segment. First, away from own_: read by every
  // engine operation, next to the sleeper and clock, written only at
  // start-up.
  ExperimentShared* s_;
  Sleeper sleeper_;
  uint64_t (*clock_)();
  ExperimentShared own_;  // used until attach_shared
  // Debts below this are carried, not slept: a nanosleep costs tens of
  // microseconds of overshoot anyway, which credit would then absorb.
  static constexpr uint64_t kMinSleepNs = 1000;
  // What an account at `local` should sleep now, the global count being
  // `g`: 0 when it owes nothing or less than kMinSleepNs (carried).
  ANDWEORC_SIGNAL_SAFE static uint64_t sleep_owed(uint64_t g, uint64_t local) {
    return g > local && g - local >= kMinSleepNs ? g - local : 0;
  }
};

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_DELAY_ENGINE_H_
