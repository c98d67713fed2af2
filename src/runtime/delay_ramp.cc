// delay_ramp.cc: see delay_ramp.h.
#include "runtime/delay_ramp.h"

#include <sched.h>

namespace andweorc::runtime {
namespace {

template <typename T>
ANDWEORC_SIGNAL_SAFE inline T rload(const T& v) {
  return __atomic_load_n(&v, __ATOMIC_RELAXED);
}
template <typename T>
ANDWEORC_SIGNAL_SAFE inline void rstore(T& v, T x) {
  __atomic_store_n(&v, x, __ATOMIC_RELAXED);
}

// What a ramp of `amount` over `span` ns from `start` has released by
// `now`. 128-bit: amount x elapsed can pass 2^64 (pure arithmetic).
ANDWEORC_SIGNAL_SAFE uint64_t ramp_released(uint64_t start, uint64_t amount,
                                            uint64_t span, uint64_t now) {
  if (amount == 0 || now <= start) return 0;
  uint64_t elapsed = now - start;
  if (elapsed >= span) return amount;
  return uint64_t((unsigned __int128)amount * elapsed / span);
}

// Takes the ramp for writing: seq even -> odd. Writers never wait for each
// other here: the caller decides what to do when it is taken.
ANDWEORC_SIGNAL_SAFE bool ramp_try_lock(DelayRamp& r) {
  uint32_t q = __atomic_load_n(&r.seq, __ATOMIC_RELAXED);
  if (q & 1) return false;
  if (!__atomic_compare_exchange_n(&r.seq, &q, q + 1, false, __ATOMIC_ACQUIRE,
                                   __ATOMIC_RELAXED))
    return false;
  // Readers that see the new fields must see the odd seq first.
  __atomic_thread_fence(__ATOMIC_RELEASE);
  return true;
}

ANDWEORC_SIGNAL_SAFE void ramp_unlock(DelayRamp& r) {
  __atomic_fetch_add(&r.seq, 1, __ATOMIC_RELEASE);
}

// One ramp's value at `now`, read consistently.
ANDWEORC_SIGNAL_SAFE uint64_t ramp_value(const DelayRamp& r, uint64_t now) {
  for (int tries = 0; tries < 64; ++tries) {
    uint32_t q0 = __atomic_load_n(&r.seq, __ATOMIC_ACQUIRE);
    if (q0 & 1) {
      __builtin_ia32_pause();
      continue;
    }
    uint64_t done = rload(r.done), start = rload(r.start_ns),
             amount = rload(r.amount), span = rload(r.span);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&r.seq, __ATOMIC_RELAXED) == q0)
      return done + ramp_released(start, amount, span, now);
  }
  // A writer stalled (preempted) mid-write: what is surely released.
  return rload(r.done);
}

ANDWEORC_SIGNAL_SAFE int32_t claim_ramp(RampSet& set, uint32_t owner) {
  for (int i = 0; i < kDelayRamps; ++i) {
    DelayRamp& r = set.ramps[i];
    uint32_t free_owner = 0;
    if (rload(r.owner) != 0 ||
        !__atomic_compare_exchange_n(&r.owner, &free_owner, owner, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      continue;
    // Readers look at ramps[0, used) only.
    uint32_t used = __atomic_load_n(&set.used, __ATOMIC_ACQUIRE);
    while (used < uint32_t(i + 1) &&
           !__atomic_compare_exchange_n(&set.used, &used, uint32_t(i + 1),
                                        false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
    }
    return i;
  }
  return -1;
}

}  // namespace

ANDWEORC_SIGNAL_SAFE uint64_t ramp_total(const RampSet& set, uint64_t now) {
  uint32_t used = __atomic_load_n(&set.used, __ATOMIC_ACQUIRE);
  if (used == 0) return 0;
  uint64_t stop = __atomic_load_n(&set.stop_ns, __ATOMIC_ACQUIRE);
  if (stop != 0 && stop < now) now = stop;
  uint64_t total = 0;
  for (uint32_t i = 0; i < used && i < uint32_t(kDelayRamps); ++i)
    total += ramp_value(set.ramps[i], now);
  return total;
}

ANDWEORC_SIGNAL_SAFE bool ramp_post(RampSet& set, RampClaim& claim,
                                    uint32_t epoch, uint64_t amount,
                                    uint64_t window, uint64_t now) {
  if (window == 0 || amount == 0) return false;
  if (claim.epoch != epoch || claim.index < 0) {
    claim.owner = __atomic_add_fetch(&set.claims, 1, __ATOMIC_RELAXED);
    if (claim.owner == 0)  // wrapped: 0 means free
      claim.owner = __atomic_add_fetch(&set.claims, 1, __ATOMIC_RELAXED);
    claim.index = claim_ramp(set, claim.owner);
    claim.epoch = epoch;
  }
  if (claim.index < 0) return false;
  DelayRamp& r = set.ramps[claim.index];
  if (!ramp_try_lock(r)) return false;  // being folded: the experiment changes
  if (rload(r.owner) != claim.owner) {  // folded and freed since the claim
    ramp_unlock(r);
    claim.index = -1;
    return false;
  }
  // What the current ramp has not released yet goes on with the new
  // amount at the new hit's rate (amount / window: the speed-up, so the
  // same speed-up keeps the same rate).
  uint64_t cur = rload(r.amount);
  uint64_t out = ramp_released(rload(r.start_ns), cur, rload(r.span), now);
  rstore(r.done, rload(r.done) + out);
  uint64_t rest = cur - out + amount;
  rstore(r.start_ns, now);
  rstore(r.amount, rest);
  unsigned __int128 span = (unsigned __int128)rest * window / amount;
  rstore(r.span, span > UINT64_MAX ? UINT64_MAX : uint64_t(span));
  ramp_unlock(r);
  return true;
}

void ramp_fold_all(RampSet& set, uint64_t now) {
  uint64_t stop = __atomic_load_n(&set.stop_ns, __ATOMIC_ACQUIRE);
  if (stop != 0 && stop < now) now = stop;
  uint32_t used = __atomic_load_n(&set.used, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < used && i < uint32_t(kDelayRamps); ++i) {
    DelayRamp& r = set.ramps[i];
    // A poster holds it for a few stores; if it was preempted there, wait,
    // but not for ever: a process of the tree killed mid-write never lets
    // go. Such a ramp is left as it is (readers count its `done`; its owner,
    // if alive, claims another ramp in the next experiment).
    int tries = 0;
    while (!ramp_try_lock(r) && ++tries < 2000) sched_yield();
    if (tries >= 2000) continue;
    uint64_t out =
        ramp_released(rload(r.start_ns), rload(r.amount), rload(r.span), now);
    rstore(r.done, rload(r.done) + out);
    rstore(r.amount, uint64_t(0));
    rstore(r.span, uint64_t(0));
    rstore(r.owner, uint32_t(0));
    ramp_unlock(r);
  }
  // With every amount 0, clearing the cap changes no ramp's value.
  __atomic_store_n(&set.stop_ns, uint64_t(0), __ATOMIC_RELEASE);
}

}  // namespace andweorc::runtime
