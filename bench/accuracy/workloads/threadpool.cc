// threadpool: a pool of two workers takes tasks from a shared queue (mutex +
// condition variable); the main thread submits a batch of 16 tasks (8 of kind
// A, 8 of kind B, interleaved), waits for the batch, then merges serially.
// One unit = one batch. Work (iterations): task_a 80k, task_b 40k, merge 120k;
// time per batch = (8*80k + 8*40k)/2 workers + 120k = 600k.
// True effects of speeding by s (perfect balance assumed; see README.md):
//   task_a: 320k s / 600k = 0.53 s   task_b: 160k s / 600k = 0.27 s
//   merge:  120k s / 600k = 0.2 s
// BOTTLENECK:task_a
#include <andweorc/andweorc.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t task_a(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:task_a
  return x;
}

__attribute__((noinline)) static uint64_t task_b(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:task_b
  return x;
}

__attribute__((noinline)) static uint64_t merge(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:merge
  return x;
}

namespace {

struct Task {
  bool kind_a;
  uint64_t seed;
};

// A minimal pool: one queue, one lock, a completion count per batch.
class Pool {
 public:
  Pool(int threads, uint64_t n_a, uint64_t n_b) : n_a_(n_a), n_b_(n_b) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      quit_ = true;
    }
    has_work_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void submit(Task t) {
    {
      std::lock_guard<std::mutex> lk(m_);
      q_.push_back(t);
      ++outstanding_;
    }
    has_work_.notify_one();
  }
  // Waits until every submitted task ran; returns the xor of their results.
  uint64_t wait_all() {
    std::unique_lock<std::mutex> lk(m_);
    idle_.wait(lk, [&] { return outstanding_ == 0; });
    return acc_;
  }

 private:
  void run() {
    for (;;) {
      Task t;
      {
        std::unique_lock<std::mutex> lk(m_);
        has_work_.wait(lk, [&] { return !q_.empty() || quit_; });
        if (q_.empty()) return;
        t = q_.front();
        q_.pop_front();
      }
      uint64_t r = t.kind_a ? task_a(t.seed, n_a_) : task_b(t.seed, n_b_);
      std::lock_guard<std::mutex> lk(m_);
      acc_ ^= r;
      if (--outstanding_ == 0) idle_.notify_one();
    }
  }

  const uint64_t n_a_, n_b_;
  std::mutex m_;
  std::condition_variable has_work_, idle_;
  std::deque<Task> q_;
  int outstanding_ = 0;
  uint64_t acc_ = 0;
  bool quit_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 600);
  const uint64_t n_a = accuracy::iterations(80000, "TASK_A");
  const uint64_t n_b = accuracy::iterations(40000, "TASK_B");
  const uint64_t n_merge = accuracy::iterations(120000, "MERGE");
  uint64_t x = 1;
  accuracy::Stopwatch sw;
  {
    Pool pool(2, n_a, n_b);
    for (uint64_t u = 0; u < units; ++u) {
      for (int i = 0; i < 16; ++i) pool.submit(Task{i % 2 == 0, x + uint64_t(i)});
      x = merge(x ^ pool.wait_all(), n_merge);
      ANDWEORC_PROGRESS("unit");
    }
  }
  accuracy::report(units, sw, x);
  return 0;
}
