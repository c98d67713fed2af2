// pipeline: three stages connected by bounded queues, one thread each.
//
//   read_item -> [queue] -> transform_item -> [queue] -> write_item
//
// transform_item takes about 80% of each item's CPU time; the other two
// stages wait for it on the queues' condition variables. The program is as
// fast as its slowest stage, so only transform_item matters. Delay
// inheritance across the condition variables is what lets a causal profiler
// see that: a virtual speed-up of transform_item delays the other stages,
// which must not count against the pipeline while they wait on a queue.
//
//   pipeline runner [profile.json]   in-process: andweorc::init + Runner
//                                    (needs ANDWEORC_ENABLED=1)
//   pipeline items N                 process N items and exit; for
//                                    `andweorc run -- pipeline items N`
#include <andweorc/runner.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>

namespace {

constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;

// One line per loop: samples are attributed to lines.
// clang-format off
__attribute__((noinline)) uint64_t read_item(uint64_t x) {
  for (int i = 0; i < 5000; ++i) { x = (x ^ (x >> 31)) * kMul + 1; asm volatile("" : "+r"(x)); }  // READ_LINE
  return x;
}

__attribute__((noinline)) uint64_t transform_item(uint64_t x) {
  for (int i = 0; i < 40000; ++i) { x = (x ^ (x >> 31)) * kMul + 2; asm volatile("" : "+r"(x)); }  // TRANSFORM_LINE
  return x;
}

__attribute__((noinline)) uint64_t write_item(uint64_t x) {
  for (int i = 0; i < 5000; ++i) { x = (x ^ (x >> 31)) * kMul + 3; asm volatile("" : "+r"(x)); }  // WRITE_LINE
  return x;
}
// clang-format on

// A bounded blocking queue; close() wakes every waiter.
class Queue {
 public:
  bool push(uint64_t v) {
    std::unique_lock<std::mutex> lock(m_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < 8; });
    if (closed_) return false;
    items_.push_back(v);
    not_empty_.notify_one();
    return true;
  }
  bool pop(uint64_t* v) {
    std::unique_lock<std::mutex> lock(m_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return false;
    *v = items_.front();
    items_.pop_front();
    not_full_.notify_one();
    return true;
  }
  void close() {
    std::lock_guard<std::mutex> lock(m_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable not_empty_, not_full_;
  std::deque<uint64_t> items_;
  bool closed_ = false;
};

class Pipeline {
 public:
  // Runs until `items` are written (0: until stop()).
  void start(long items) {
    limit_ = items;
    threads_[0] = std::thread([this] {
      uint64_t x = 1;
      for (long n = 0; !stop_ && (limit_ == 0 || n < limit_); ++n)
        if (!raw_.push(x = read_item(x))) break;
      raw_.close();
    });
    threads_[1] = std::thread([this] {
      for (uint64_t x; raw_.pop(&x);)
        if (!transformed_.push(transform_item(x))) break;
      transformed_.close();
    });
    threads_[2] = std::thread([this] {
      for (uint64_t x; transformed_.pop(&x);) {
        sink_ ^= write_item(x);
        ANDWEORC_PROGRESS("item_written");
      }
    });
  }
  void stop() {
    stop_ = true;
    raw_.close();
    transformed_.close();
  }
  uint64_t join() {
    for (auto& t : threads_) t.join();
    return sink_;
  }

 private:
  Queue raw_, transformed_;
  std::thread threads_[3];
  std::atomic<bool> stop_{false};
  long limit_ = 0;
  uint64_t sink_ = 0;
};

int run_in_process(const char* profile_path) {
  andweorc::init();
  Pipeline p;
  p.start(0);
  andweorc::RunnerConfig config;
  config.max_lines = 3;
  config.repetitions = 4;
  config.seed = 11;
  andweorc::Results results = andweorc::Runner(config).run("item_written");
  p.stop();
  p.join();
  results.print(std::cout);
  if (results.ok() && profile_path != nullptr) {
    std::string error;
    if (!results.write(profile_path, &error)) {
      std::cerr << "pipeline: " << error << "\n";
      return 1;
    }
  }
  return results.ok() || !andweorc::enabled() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "runner") == 0)
    return run_in_process(argc > 2 ? argv[2] : nullptr);
  if (argc == 3 && std::strcmp(argv[1], "items") == 0) {
    Pipeline p;
    p.start(std::atol(argv[2]));
    std::cout << "pipeline: checksum " << (p.join() & 0xffff) << "\n";
    return 0;
  }
  std::cerr << "usage: pipeline runner [profile.json] | pipeline items N\n";
  return 2;
}
