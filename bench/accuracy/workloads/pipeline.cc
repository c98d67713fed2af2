// pipeline: producer -> bounded queue (mutex + two condition variables) ->
// consumer. One unit = one item consumed. The producer is the slower stage:
// produce 100k iterations per item, consume 50k.
// True effects of speeding by s (s < 0.5 keeps the producer the slower one):
//   produce: s        consume: 0 (the consumer waits on an empty queue)
// BOTTLENECK:produce
#include <andweorc/andweorc.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t produce(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:produce
  return x;
}

__attribute__((noinline)) static uint64_t consume(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:consume
  return x;
}

namespace {

// Bounded blocking queue, the textbook mutex + not_full/not_empty shape.
class Queue {
 public:
  explicit Queue(size_t cap) : cap_(cap) {}
  void push(uint64_t v) {
    std::unique_lock<std::mutex> lk(m_);
    not_full_.wait(lk, [&] { return q_.size() < cap_; });
    q_.push_back(v);
    not_empty_.notify_one();
  }
  uint64_t pop() {
    std::unique_lock<std::mutex> lk(m_);
    not_empty_.wait(lk, [&] { return !q_.empty(); });
    uint64_t v = q_.front();
    q_.pop_front();
    not_full_.notify_one();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable not_full_, not_empty_;
  std::deque<uint64_t> q_;
  size_t cap_;
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 3500);
  const uint64_t n_prod = accuracy::iterations(100000, "PRODUCE");
  const uint64_t n_cons = accuracy::iterations(50000, "CONSUME");
  Queue q(16);
  uint64_t sink = 0;
  accuracy::Stopwatch sw;
  std::thread producer([&] {
    uint64_t x = 7;
    for (uint64_t u = 0; u < units; ++u) {
      x = produce(x + u, n_prod);
      q.push(x);
    }
  });
  std::thread consumer([&] {
    uint64_t y = 5;
    for (uint64_t u = 0; u < units; ++u) {
      y = consume(y ^ q.pop(), n_cons);
      ANDWEORC_PROGRESS("unit");
    }
    sink = y;
  });
  producer.join();
  consumer.join();
  accuracy::report(units, sw, sink);
  return 0;
}
