// diff_demo: one program in two versions, to show `andweorc diff`.
//
// Per batch, the main thread compresses while a worker thread checksums the
// same batch; the main thread then waits for the checksum (fork/join), and
// the progress point `batch_done` counts batches. A batch takes as long as
// the slower of the two stages.
//
// Built as diff_demo_base, compress_batch does 4x the work of
// checksum_batch: compressing is the bottleneck, checksumming is off the
// critical path. diff_demo_new is built with -DDIFF_DEMO_FIXED, where
// compressing does a quarter of checksumming's work (the "fix"): the batch
// now waits for the checksum, which becomes the bottleneck.
#include <andweorc/andweorc.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#ifdef DIFF_DEMO_FIXED
constexpr uint64_t kCompressWork = 50000;
#else
constexpr uint64_t kCompressWork = 800000;
#endif
constexpr uint64_t kChecksumWork = 200000;
constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;

// clang-format off
__attribute__((noinline)) static uint64_t compress_batch(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 31)) * kMul; asm volatile("" : "+r"(x)); }
  return x;
}

__attribute__((noinline)) static uint64_t checksum_batch(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }
  return x;
}
// clang-format on

namespace {

// The worker's side of the fork/join, once per batch.
struct Batch {
  std::mutex m;
  std::condition_variable start, done;
  uint64_t number = 0;   // the batch to checksum; 0 = none yet
  uint64_t checked = 0;  // the last batch checksummed
  uint64_t sum = 1;
  bool quit = false;
};

void checksummer(Batch& b) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(b.m);
      b.start.wait(lk, [&] { return b.number != seen || b.quit; });
      if (b.quit) return;
      seen = b.number;
    }
    uint64_t s = checksum_batch(seen, kChecksumWork);
    {
      std::lock_guard<std::mutex> lk(b.m);
      b.sum ^= s;
      b.checked = seen;
    }
    b.done.notify_one();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t batches =
      argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000;
  Batch b;
  std::thread worker(checksummer, std::ref(b));
  uint64_t x = 3;
  for (uint64_t n = 1; n <= batches; ++n) {
    {
      std::lock_guard<std::mutex> lk(b.m);
      b.number = n;
    }
    b.start.notify_one();
    x = compress_batch(x + n, kCompressWork);
    {
      std::unique_lock<std::mutex> lk(b.m);
      b.done.wait(lk, [&] { return b.checked == n; });
    }
    ANDWEORC_PROGRESS("batch_done");
  }
  {
    std::lock_guard<std::mutex> lk(b.m);
    b.quit = true;
  }
  b.start.notify_one();
  worker.join();
  std::printf("%llu batches, result %llx\n",
              static_cast<unsigned long long>(batches),
              static_cast<unsigned long long>(x ^ b.sum));
  return 0;
}
