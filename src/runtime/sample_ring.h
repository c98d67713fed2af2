// sample_ring.h: a single-producer/single-consumer byte ring for samples.
//
// Producer: the owning thread's signal handler (ANDWEORC_SIGNAL_SAFE).
// Consumer: whoever holds io_lock (collector thread, shutdown, crash flush).
// The memory is supplied by the owner (mmap'd at thread registration), so the
// ring itself never allocates. Records never straddle the end: the producer
// copies with wrap-around and the consumer reassembles the same way.
#ifndef ANDWEORC_RUNTIME_SAMPLE_RING_H_
#define ANDWEORC_RUNTIME_SAMPLE_RING_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

class SampleRing {
 public:
  // `capacity` must be a power of two.
  void init(uint8_t* memory, size_t capacity) {
    data_ = memory;
    mask_ = capacity - 1;
    head_ = tail_ = 0;
    dropped_ = 0;
  }
  bool ready() const { return data_ != nullptr; }

  // Producer: appends a record made of two pieces; false (and counts a drop)
  // when there is no room.
  ANDWEORC_SIGNAL_SAFE bool push(const void* a, size_t alen, const void* b,
                                 size_t blen) {
    uint64_t head = __atomic_load_n(&head_, __ATOMIC_RELAXED);
    uint64_t tail = __atomic_load_n(&tail_, __ATOMIC_ACQUIRE);
    if (head - tail + alen + blen > mask_ + 1) {
      __atomic_add_fetch(&dropped_, 1, __ATOMIC_RELAXED);
      return false;
    }
    copy_in(head, a, alen);
    copy_in(head + alen, b, blen);
    __atomic_store_n(&head_, head + alen + blen, __ATOMIC_RELEASE);
    return true;
  }

  // Consumer: bytes available to read.
  ANDWEORC_SIGNAL_SAFE size_t readable() const {
    return size_t(__atomic_load_n(&head_, __ATOMIC_ACQUIRE) -
                  __atomic_load_n(&tail_, __ATOMIC_RELAXED));
  }
  // Consumer: copies `len` bytes starting `skip` bytes past the read position.
  ANDWEORC_SIGNAL_SAFE void peek(size_t skip, void* out, size_t len) const {
    uint64_t pos = __atomic_load_n(&tail_, __ATOMIC_RELAXED) + skip;
    uint8_t* o = static_cast<uint8_t*>(out);
    for (size_t i = 0; i < len; ++i) o[i] = data_[(pos + i) & mask_];
  }
  // Consumer: releases `len` bytes to the producer.
  ANDWEORC_SIGNAL_SAFE void consume(size_t len) {
    __atomic_store_n(&tail_, __atomic_load_n(&tail_, __ATOMIC_RELAXED) + len,
                     __ATOMIC_RELEASE);
  }
  // Producer: records samples lost before they reached the ring.
  ANDWEORC_SIGNAL_SAFE void count_dropped(uint64_t n) {
    __atomic_add_fetch(&dropped_, n, __ATOMIC_RELAXED);
  }
  // Consumer: drops counted since the last call.
  ANDWEORC_SIGNAL_SAFE uint64_t take_dropped() {
    return __atomic_exchange_n(&dropped_, 0, __ATOMIC_RELAXED);
  }

 private:
  ANDWEORC_SIGNAL_SAFE void copy_in(uint64_t pos, const void* src, size_t len) {
    const uint8_t* s = static_cast<const uint8_t*>(src);
    for (size_t i = 0; i < len; ++i) data_[(pos + i) & mask_] = s[i];
  }

  uint8_t* data_ = nullptr;
  uint64_t mask_ = 0;
  uint64_t head_ = 0;  // written by the producer only
  uint64_t tail_ = 0;  // written by the consumer only
  uint64_t dropped_ = 0;
};

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SAMPLE_RING_H_
