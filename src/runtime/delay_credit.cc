// delay_credit.cc: see delay_credit.h.
#include "runtime/delay_credit.h"

namespace andweorc::runtime {

ANDWEORC_SIGNAL_SAFE uint32_t lump_new_id(LumpLog& log) {
  uint32_t id = __atomic_add_fetch(&log.ids, 1, __ATOMIC_RELAXED);
  return id != 0 ? id : __atomic_add_fetch(&log.ids, 1, __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE void lump_post(LumpLog& log, uint32_t epoch,
                                    uint64_t start, uint64_t amount,
                                    uint64_t begin_ns, uint64_t end_ns,
                                    uint32_t owner) {
  uint64_t i = __atomic_fetch_add(&log.next, 1, __ATOMIC_RELAXED);
  Lump& l = log.slots[i % kLumpSlots];
  uint64_t seq = __atomic_load_n(&l.seq, __ATOMIC_RELAXED);
  // A writer of 64 lumps ago still holds the slot (preempted mid-post):
  // leave it; this lump is paid in full by everyone.
  if ((seq & 1) != 0 ||
      !__atomic_compare_exchange_n(&l.seq, &seq, seq + 1, false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return;
  __atomic_store_n(&l.start, start, __ATOMIC_RELAXED);
  __atomic_store_n(&l.amount, amount, __ATOMIC_RELAXED);
  __atomic_store_n(&l.begin_ns, begin_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&l.end_ns, end_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&l.owner, owner, __ATOMIC_RELAXED);
  __atomic_store_n(&l.epoch, epoch, __ATOMIC_RELAXED);
  __atomic_store_n(&l.seq, seq + 2, __ATOMIC_RELEASE);
}

ANDWEORC_SIGNAL_SAFE void spans_add(BlockedSpans& s, uint64_t begin_ns,
                                    uint64_t end_ns) {
  if (end_ns <= begin_ns) return;
  uint32_t i = s.next % kBlockedSpans;
  s.begin[i] = begin_ns;
  s.end[i] = end_ns;
  s.next = i + 1;
}

ANDWEORC_SIGNAL_SAFE uint64_t spans_overlap(const BlockedSpans& s,
                                            uint64_t begin_ns,
                                            uint64_t end_ns) {
  uint64_t covered = 0;
  for (int i = 0; i < kBlockedSpans; ++i) {
    uint64_t b = s.begin[i] > begin_ns ? s.begin[i] : begin_ns;
    uint64_t e = s.end[i] < end_ns ? s.end[i] : end_ns;
    if (e > b) covered += e - b;
  }
  return covered;
}

ANDWEORC_SIGNAL_SAFE uint64_t lump_credit(const LumpLog& log, uint32_t epoch,
                                          const BlockedSpans& s, uint32_t owner,
                                          uint64_t from, uint64_t to) {
  if (from >= to) return 0;
  uint64_t credit = 0;
  for (int i = 0; i < kLumpSlots; ++i) {
    const Lump& l = log.slots[i];
    uint64_t seq = __atomic_load_n(&l.seq, __ATOMIC_ACQUIRE);
    if (seq == 0 || (seq & 1) != 0) continue;
    uint64_t start = __atomic_load_n(&l.start, __ATOMIC_RELAXED);
    uint64_t amount = __atomic_load_n(&l.amount, __ATOMIC_RELAXED);
    uint64_t begin = __atomic_load_n(&l.begin_ns, __ATOMIC_RELAXED);
    uint64_t end = __atomic_load_n(&l.end_ns, __ATOMIC_RELAXED);
    uint32_t who = __atomic_load_n(&l.owner, __ATOMIC_RELAXED);
    uint32_t e = __atomic_load_n(&l.epoch, __ATOMIC_RELAXED);
    // Seqlock: the fields above belong to one lump only if the word did not
    // move while they were read.
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&l.seq, __ATOMIC_RELAXED) != seq) continue;
    if (e != epoch || who == owner || start < from || start > to ||
        to - start < amount || end <= begin)
      continue;
    uint64_t window = end - begin;
    uint64_t covered = spans_overlap(s, begin, end);
    if (covered > window) covered = window;
    // amount and window are at most seconds: the product fits 128 bits
    // without the division helper's loss of precision mattering.
    credit += uint64_t((unsigned __int128)amount * covered / window);
  }
  return credit;
}

}  // namespace andweorc::runtime
