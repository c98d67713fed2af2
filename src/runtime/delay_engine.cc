// delay_engine.cc: see delay_engine.h for the rules.
#include "runtime/delay_engine.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include "runtime/blocking.h"

// blocking.h: engines whose experiment inserts delays (note_armed).
// Its own cache line (blocking.h). extern "C" by its declaration.
alignas(64) int andweorc_rt_delays_armed[ANDWEORC_RT_ARMED_LINE];

namespace andweorc::runtime {
namespace {

// One instruction, so the thread's own signal handler cannot split it.
ANDWEORC_SIGNAL_SAFE inline void add_local(DelayAccount& a, uint64_t ns) {
  asm volatile("addq %1, %0" : "+m"(a.local) : "r"(ns));
}

// rt_sigprocmask straight to the kernel (raw_syscall): libc's sigprocmask
// is interposed and would refuse to block SIGPROF. The kernel's sigset is
// 8 bytes.
ANDWEORC_SIGNAL_SAFE inline void raw_sigprocmask(int how, const uint64_t* set,
                                                 uint64_t* old) {
  raw_syscall(SYS_rt_sigprocmask, how, long(set), long(old), 8);
}

}  // namespace

ANDWEORC_SIGNAL_SAFE uint64_t real_sleep(void*, uint64_t ns) {
  uint64_t start = monotonic_ns();
  timespec req{time_t(ns / 1000000000u), long(ns % 1000000000u)};
  timespec rem;
  // The thread's timer slack (50 us by default) would stretch every delay by
  // up to that much; lowering it for good would also shorten the program's
  // own sleeps, timed waits and poll timeouts (issue 18: +48% throughput of
  // a usleep-bound program). So 1 ns only for this sleep, then the
  // program's value again. Three prctl calls, ~0.4-1.5 us here, once per
  // delay (bench/overhead/sleep_precision). Our thread's own handler cannot
  // nest a sleep in between: in_delay is set while the sleeper runs.
  long slack = raw_syscall(SYS_prctl, PR_GET_TIMERSLACK);
  bool lowered = slack > 1;
  if (lowered) raw_syscall(SYS_prctl, PR_SET_TIMERSLACK, 1);
  // Straight to the kernel: libc's nanosleep is interposed by us. Resume
  // after signals (other samples may arrive while we sleep).
  while (raw_syscall(SYS_nanosleep, long(&req), long(&rem)) == -EINTR)
    req = rem;
  if (lowered) raw_syscall(SYS_prctl, PR_SET_TIMERSLACK, slack);
  return monotonic_ns() - start;
}

ANDWEORC_SIGNAL_SAFE uint64_t real_spin(void*, uint64_t ns) {
  // Let SIGPROF in while spinning (see the header); the kernel's sigset is
  // 8 bytes. SIGPROF is the runtime's profiler signal (runtime.h).
  uint64_t prof = uint64_t(1) << (SIGPROF - 1), old = 0;
  raw_sigprocmask(SIG_UNBLOCK, &prof, &old);
  uint64_t start = monotonic_ns();
  uint64_t now = start;
  while (now - start < ns) {
    __builtin_ia32_pause();
    now = monotonic_ns();
  }
  if (old & prof) raw_sigprocmask(SIG_BLOCK, &prof, nullptr);
  return now - start;
}

// The account is only ever touched by its own thread, so "atomic" here means
// "not split by a signal handler": single loads and stores, ordered by
// compiler (signal) fences, no locked instructions on the fast path.
ANDWEORC_SIGNAL_SAFE bool DelayEngine::enter(DelayAccount& a) {
  if (__atomic_load_n(&a.busy, __ATOMIC_RELAXED)) return false;
  // A handler landing here runs a whole operation before we read anything.
  __atomic_store_n(&a.busy, 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return true;
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::leave(DelayAccount& a) {
  for (;;) {
    // xchg is one instruction: a handler's add either lands before it (and
    // is taken) or after it (and is seen below). Only when there is
    // something to take: xchg is a locked instruction, and leave() runs
    // several times per lock and I/O call of the program during experiments
    // (it was the runtime's costliest function in memcached, ~5% of its
    // CPU). A handler that adds after the load is seen below.
    if (__atomic_load_n(&a.deferred_hits, __ATOMIC_RELAXED) != 0) {
      uint64_t hits =
          __atomic_exchange_n(&a.deferred_hits, 0, __ATOMIC_RELAXED);
      if (hits != 0) add_hits(a, hits);
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&a.busy, 0, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    // Deferred between the exchange and the store: take them too.
    if (__atomic_load_n(&a.deferred_hits, __ATOMIC_RELAXED) == 0) return;
    __atomic_store_n(&a.busy, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  }
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::sync_epoch(DelayAccount& a) {
  // s_ changes only at start-up, before any experiment: an account synced
  // before that (a sample's hits outside experiments) is put right here.
  __atomic_store_n(&a.shared, s_, __ATOMIC_RELAXED);
  uint32_t e = __atomic_load_n(&s_->epoch, __ATOMIC_ACQUIRE);
  if (a.epoch != e) {
    // Start this experiment from its first instant: debts and credit from
    // the previous one are dropped, delays inserted since it began are owed.
    a.epoch = e;
    a.local = __atomic_load_n(&s_->start_global, __ATOMIC_ACQUIRE);
    a.blocked_global = a.local;
    a.sample_global = a.local;
    a.woken_since_sample = 0;
    a.debt_at_block = 0;
    a.lumps_seen = 0;  // the lump log keeps each lump's experiment
  }
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::take_lump_credit(DelayAccount& a) {
  if (__atomic_load_n(&s_->lumps.window_per_hit, __ATOMIC_ACQUIRE) == 0) return;
  uint64_t to = __atomic_load_n(&s_->global, __ATOMIC_ACQUIRE);
  if (to <= a.lumps_seen) return;
  uint64_t credit =
      lump_credit(s_->lumps, a.epoch, a.spans, a.lump_id, a.lumps_seen, to);
  // Lumps in [lumps_seen, to) not readable now (being written, or already
  // overwritten) are never looked at again: paid in full.
  a.lumps_seen = to;
  if (credit != 0) add_local(a, credit);
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::add_hits(DelayAccount& a,
                                                uint64_t hits) {
  if (hits == 0 || !__atomic_load_n(&s_->active, __ATOMIC_ACQUIRE)) return;
  // The coordinator's lease ran out (its process died mid-experiment).
  uint64_t expires = __atomic_load_n(&s_->expires_ns, __ATOMIC_ACQUIRE);
  if (expires != 0 && clock_() > expires) return;
  __atomic_add_fetch(&s_->hits, hits, __ATOMIC_RELAXED);
  uint64_t add = delay_per_hit() * hits * a.scale / 1024;
  if (add != 0) {
    // Released over the time the hits stand for (delay_ramp.h), or at once
    // when ramps are off or none is free.
    uint64_t window =
        __atomic_load_n(&s_->ramps.window_per_hit, __ATOMIC_ACQUIRE) * hits;
    bool ramped = ramp_post(s_->ramps, a.ramp, a.epoch, add, window, clock_());
    // ramps.used is non-zero now, for good: global() must add ramps.
    if (ramped && __atomic_load_n(&s_->ramps_in_use, __ATOMIC_ACQUIRE) == 0)
      __atomic_store_n(&s_->ramps_in_use, 1, __ATOMIC_RELEASE);
    if (!ramped) {
      uint64_t start = __atomic_fetch_add(&s_->global, add, __ATOMIC_ACQ_REL);
      // Logged with the time it stands for: threads blocked then are
      // credited their share (delay_credit.h).
      uint64_t w = __atomic_load_n(&s_->lumps.window_per_hit, __ATOMIC_ACQUIRE);
      if (w != 0) {
        uint64_t now = clock_();
        uint64_t span = w * hits * a.scale / 1024;
        // A fork child's copy of this account keeps the id: the two then
        // ignore each other's lumps (they pay them in full, as before).
        if (a.lump_id == 0) a.lump_id = lump_new_id(s_->lumps);
        lump_post(s_->lumps, a.epoch, start, add, now > span ? now - span : 0,
                  now, a.lump_id);
      }
    }
    add_local(a, add);  // the sped-up thread itself is not delayed
  }
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::on_samples(DelayAccount& a,
                                                  uint64_t hits) {
  if (!enter(a)) {
    // We interrupted this thread's own engine operation: count the hits
    // when it ends; its debt is paid at the next operation.
    if (hits != 0) __atomic_add_fetch(&a.deferred_hits, hits, __ATOMIC_RELAXED);
    return;
  }
  sync_epoch(a);
  add_hits(a, hits);
  // Refinement 7 (design.md §5): a thread woken by another thread since its
  // previous sample pays here only what it already owed at that sample.
  // What it came to owe since may still be absorbed by its next wait, as a
  // pause spread over its running time would have been; paying it at once,
  // at whatever point the sample lands, stalls whoever that thread was
  // about to feed. A thread that keeps running (no such wake) pays at once.
  const uint64_t due = a.woken_since_sample ? a.sample_global : UINT64_MAX;
  a.woken_since_sample = 0;
  a.sample_global = global();
  pay(a, due);
  leave(a);
}

ANDWEORC_SIGNAL_SAFE uint64_t DelayEngine::catch_up_owed(DelayAccount& a) {
  if (!enter(a)) return 0;  // interrupted an operation: it pays for us
  sync_epoch(a);
  uint64_t slept = pay(a);
  leave(a);
  return slept;
}

// Called with busy set.
ANDWEORC_SIGNAL_SAFE uint64_t DelayEngine::pay(DelayAccount& a, uint64_t upto) {
  take_lump_credit(a);
  const uint64_t g = global();
  uint64_t owed = sleep_owed(g < upto ? g : upto, a.local);
  if (owed == 0) return 0;
  a.delay_started_ns = clock_();
  a.in_delay = 1;  // the samplers drop samples taken from here on
  asm volatile("" ::: "memory");
  uint64_t slept = sleeper_.sleep(sleeper_.ctx, owed);
  add_local(a, slept);  // oversleep becomes credit
  a.paid += slept;
  asm volatile("" ::: "memory");
  a.in_delay = 0;
  return slept;
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::pre_block(DelayAccount& a) {
  if (!enter(a)) return;
  sync_epoch(a);
  take_lump_credit(a);  // before the debt it carries into the wait
  uint64_t g = global();
  a.blocked_global = g;
  uint64_t local = a.local;
  a.debt_at_block = g > local ? g - local : 0;
  bool spans = __atomic_load_n(&s_->lumps.window_per_hit, __ATOMIC_ACQUIRE);
  a.block_began_ns = spans || a.debt_at_block != 0 ? clock_() : 0;
  leave(a);
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::post_block(DelayAccount& a,
                                                  bool woken_by_thread) {
  if (!enter(a)) return;
  sync_epoch(a);
  if (woken_by_thread) {
    uint64_t g = global();
    // Delays inserted while we were blocked were paid by our waker.
    uint64_t credit = g > a.blocked_global ? g - a.blocked_global : 0;
    uint64_t now = a.block_began_ns != 0 ? clock_() : 0;
    uint64_t absorbed = 0;
    if (a.debt_at_block != 0 && a.block_began_ns != 0) {
      uint64_t waited = now - a.block_began_ns;
      absorbed = waited < a.debt_at_block ? waited : a.debt_at_block;
      credit += absorbed;
    }
    a.debt_at_block = 0;
    a.woken_since_sample = 1;
    if (credit != 0) add_local(a, credit);
    if (a.block_began_ns != 0) {
      // The wait, less what paid the debt carried into it, stood in for
      // delays: lumps posted later whose window covers it are credited.
      spans_add(a.spans, a.block_began_ns + absorbed, now);
      // Lumps posted while we were blocked are in the credit above.
      a.lumps_seen = __atomic_load_n(&s_->global, __ATOMIC_ACQUIRE);
    }
  } else {
    a.debt_at_block = 0;
    pay(a);
  }
  a.block_began_ns = 0;
  leave(a);
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::inherit(
    DelayAccount& child, const DelayAccount& parent) const {
  child.local = parent.local;
  child.epoch = parent.epoch;
  child.blocked_global = parent.local;
  child.paid = 0;
}

ANDWEORC_SIGNAL_SAFE uint64_t DelayEngine::token(const DelayAccount& a) const {
  // Encode the epoch so a token from an old experiment is ignored.
  return (uint64_t(a.epoch) << 48) | (a.local & ((uint64_t(1) << 48) - 1));
}

ANDWEORC_SIGNAL_SAFE void DelayEngine::adopt(DelayAccount& a, uint64_t token) {
  if (!enter(a)) return;
  sync_epoch(a);
  if (uint32_t(token >> 48) == (a.epoch & 0xffff)) {
    uint64_t local = token & ((uint64_t(1) << 48) - 1);
    uint64_t mine = a.local & ((uint64_t(1) << 48) - 1);
    if (local > mine) add_local(a, local - mine);
  }
  leave(a);
}

void DelayEngine::attach_shared(ExperimentShared* shared) {
  if (shared == nullptr || shared == s_) return;
  // Carry the state over field by field (atomics, so no struct copy).
  auto move = [](uint64_t* to, const uint64_t* from) {
    __atomic_store_n(to, __atomic_load_n(from, __ATOMIC_ACQUIRE),
                     __ATOMIC_RELEASE);
  };
  move(&shared->global, &s_->global);
  move(&shared->delay_per_hit, &s_->delay_per_hit);
  move(&shared->hits, &s_->hits);
  move(&shared->start_global, &s_->start_global);
  move(&shared->expires_ns, &s_->expires_ns);
  // Ramps are idle before the first experiment: the setting is all.
  move(&shared->ramps.window_per_hit, &s_->ramps.window_per_hit);
  move(&shared->lumps.window_per_hit, &s_->lumps.window_per_hit);
  __atomic_store_n(&shared->ramps_in_use,
                   __atomic_load_n(&s_->ramps_in_use, __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&shared->epoch,
                   __atomic_load_n(&s_->epoch, __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&shared->active,
                   __atomic_load_n(&s_->active, __ATOMIC_ACQUIRE),
                   __ATOMIC_RELEASE);
  __atomic_store_n(&s_, shared, __ATOMIC_RELEASE);
}

void DelayEngine::start_experiment(uint64_t delay_per_hit, uint64_t expires_ns,
                                   uint64_t window_per_hit,
                                   uint64_t credit_window_per_hit) {
  // The last experiment's ramps keep what they released by its end; the
  // rest is never owed (threads start this one from start_global).
  ramp_fold_all(s_->ramps, clock_());
  __atomic_store_n(&s_->ramps.window_per_hit, window_per_hit, __ATOMIC_RELEASE);
  __atomic_store_n(&s_->lumps.window_per_hit, credit_window_per_hit,
                   __ATOMIC_RELEASE);
  __atomic_store_n(&s_->hits, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&s_->expires_ns, expires_ns, __ATOMIC_RELEASE);
  __atomic_store_n(&s_->start_global, global(), __ATOMIC_RELEASE);
  __atomic_store_n(&s_->delay_per_hit, delay_per_hit, __ATOMIC_RELEASE);
  __atomic_add_fetch(&s_->epoch, 1, __ATOMIC_ACQ_REL);
  // Armed for 0% experiments too: the wrappers then do the same work in
  // both arms of a comparison, so what they cost cancels out of every
  // estimate. Armed only when delays could be inserted, the s% arm alone
  // paid for it: memcached lost 13-15% of its requests in s% experiments
  // that inserted no delay at all, and every impact came out negative
  // (a region whose removal really saves 25% got -0.14).
  note_armed(__atomic_exchange_n(&s_->active, 1, __ATOMIC_ACQ_REL), 1);
}

void DelayEngine::renew(uint64_t expires_ns) {
  __atomic_store_n(&s_->expires_ns, expires_ns, __ATOMIC_RELEASE);
}

void DelayEngine::end_experiment() {
  note_armed(__atomic_exchange_n(&s_->active, 0, __ATOMIC_ACQ_REL), 0);
  // Ramps release nothing after the end (0 would mean "running").
  uint64_t now = clock_();
  uint64_t expected = 0;
  __atomic_compare_exchange_n(&s_->ramps.stop_ns, &expected, now != 0 ? now : 1,
                              false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
  __atomic_store_n(&s_->delay_per_hit, 0, __ATOMIC_RELEASE);
}

void DelayEngine::note_armed(uint64_t before, uint64_t after) {
  // The exchange makes each engine's transition happen once even when the
  // coordinator and shutdown end an experiment at the same time, so the
  // count stays exact: engines (in the runtime, the one engine) with an
  // experiment running.
  if (before == 0 && after != 0)
    __atomic_add_fetch(&andweorc_rt_delays_armed[0], 1, __ATOMIC_RELEASE);
  else if (before != 0 && after == 0)
    __atomic_sub_fetch(&andweorc_rt_delays_armed[0], 1, __ATOMIC_RELEASE);
}

}  // namespace andweorc::runtime
