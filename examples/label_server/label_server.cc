// label_server: per-request labels on a shared worker pool.
//
// A client thread sends three kinds of requests ("search", "index",
// "stats") to one queue served by a pool of workers, so every worker runs
// every kind. Each kind's work is in its own function. Workers run a
// request under its endpoint's label (and, nested, a label for the client
// batch), so the profile separates the endpoints even though they share
// threads and call stacks. A labelled progress point counts completed
// requests per endpoint: "requests{endpoint=search}" and so on.
//
// Usage: label_server [SECONDS] [WORKERS]   (defaults: 3 s, 3 workers)
#include <andweorc/andweorc.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

enum class Endpoint { kSearch, kIndex, kStats };

// Each endpoint's work, in a function of its own. The amounts differ so the
// endpoints get different shares of the CPU (search most).
__attribute__((noinline)) uint64_t search_work(uint64_t seed) {
  uint64_t h = seed;
  for (int i = 0; i < 60000; ++i) h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
  return h;
}

__attribute__((noinline)) uint64_t index_work(uint64_t seed) {
  uint64_t a = seed | 1, b = seed >> 3;
  for (int i = 0; i < 40000; ++i) {
    a = a * 6364136223846793005ull + 1442695040888963407ull;
    b += a >> 41;
  }
  return a ^ b;
}

__attribute__((noinline)) uint64_t stats_work(uint64_t seed) {
  double x = double(seed % 1000) + 0.5, sum = 0;
  for (int i = 0; i < 20000; ++i) {
    x = x * 0.999 + 1.0 / (x + double(i & 7));
    sum += x;
  }
  return uint64_t(sum);
}

struct Request {
  Endpoint endpoint;
  uint64_t seed;
  std::shared_ptr<andweorc::Label> batch;  // nested label: the client batch
};

class WorkerPool {
 public:
  explicit WorkerPool(int workers) {
    for (int i = 0; i < workers; ++i)
      threads_.emplace_back([this] { serve(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  // Blocks while `limit` requests are already waiting.
  void submit(Request r, size_t limit) {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return queue_.size() < limit; });
    queue_.push_back(std::move(r));
    ready_.notify_one();
  }
  uint64_t checksum() const { return checksum_.load(); }

 private:
  void serve() {
    for (;;) {
      Request r;
      {
        std::unique_lock<std::mutex> lock(mu_);
        ready_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        r = std::move(queue_.front());
        queue_.pop_front();
      }
      room_.notify_one();
      handle(r);
    }
  }

  void handle(const Request& r) {
    andweorc::Label& label = endpoint_label(r.endpoint);
    uint64_t result = r.batch->apply([&] {
      return label.apply([&] {
        switch (r.endpoint) {
          case Endpoint::kSearch:
            return search_work(r.seed);
          case Endpoint::kIndex:
            return index_work(r.seed);
          case Endpoint::kStats:
            return stats_work(r.seed);
        }
        return uint64_t(0);
      });
    });
    label.progress("requests");
    checksum_ += result;
  }

  // One long-lived label per endpoint (a label is meant to outlive many
  // applies: its trampoline is bound once).
  static andweorc::Label& endpoint_label(Endpoint e) {
    static andweorc::Label search("endpoint", "search");
    static andweorc::Label index("endpoint", "index");
    static andweorc::Label stats("endpoint", "stats");
    return e == Endpoint::kSearch  ? search
           : e == Endpoint::kIndex ? index
                                   : stats;
  }

  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<Request> queue_;
  bool stop_ = false;
  std::atomic<uint64_t> checksum_{0};
  std::vector<std::thread> threads_;
};

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  int workers = argc > 2 ? std::atoi(argv[2]) : 3;
  if (seconds <= 0 || workers <= 0) {
    std::fprintf(stderr, "usage: label_server [SECONDS] [WORKERS]\n");
    return 2;
  }
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t sent = 0;
  {
    WorkerPool pool(workers);
    // Requests come in batches of 50 from one "client"; each batch has its
    // own label, so trampolines are bound and returned all the time.
    for (int batch = 0; std::chrono::steady_clock::now() < deadline; ++batch) {
      auto label = std::make_shared<andweorc::Label>(
          "batch", std::to_string(batch % 10).c_str());
      for (int i = 0; i < 50; ++i, ++sent) {
        // 3 : 2 : 1 mix of search, index, stats.
        int k = int(sent % 6);
        Endpoint e = k < 3   ? Endpoint::kSearch
                     : k < 5 ? Endpoint::kIndex
                             : Endpoint::kStats;
        pool.submit(Request{e, sent * 0x9E3779B97F4A7C15ull, label}, 8);
      }
    }
    std::printf("sent %llu requests, checksum %llx\n", (unsigned long long)sent,
                (unsigned long long)pool.checksum());
  }
  return 0;
}
