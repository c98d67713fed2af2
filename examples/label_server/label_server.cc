// label_server: per-request labels on a shared worker pool.
//
// Three clients, one per kind of request ("search", "index", "stats"),
// send to one queue served by a pool of workers, so every worker runs every
// kind. Each kind's work is in its own function. Workers run a
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

// A client keeps up to `limit` requests of its endpoint in flight (a closed
// loop: it sends the next one when one completes), so each endpoint's rate
// depends on how fast its own requests are served.
class Client {
 public:
  explicit Client(int limit) : limit_(limit) {}
  void wait_for_room() {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return in_flight_ < limit_; });
    ++in_flight_;
  }
  void done() {
    std::lock_guard<std::mutex> lock(mu_);
    --in_flight_;
    room_.notify_one();
  }
  void drain() {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return in_flight_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable room_;
  int in_flight_ = 0;
  const int limit_;
};

struct Request {
  Endpoint endpoint;
  uint64_t seed;
  std::shared_ptr<andweorc::Label> batch;  // nested label: the client batch
  Client* client;
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
  void submit(Request r) {
    std::lock_guard<std::mutex> lock(mu_);
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
      handle(r);
      r.batch.reset();  // the last request of a batch frees its label
      r.client->done();
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
  std::condition_variable ready_;
  std::deque<Request> queue_;
  bool stop_ = false;
  std::atomic<uint64_t> checksum_{0};
  std::vector<std::thread> threads_;
};

const char* endpoint_name(Endpoint e) {
  return e == Endpoint::kSearch  ? "search"
         : e == Endpoint::kIndex ? "index"
                                 : "stats";
}

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
  std::atomic<uint64_t> sent{0};
  uint64_t checksum = 0;
  {
    WorkerPool pool(workers);
    // One client per endpoint, each with 2 requests in flight. Requests come
    // in batches of 50, each batch with its own label (nested inside the
    // endpoint's), so trampolines are bound and returned all the time.
    std::vector<std::thread> clients;
    for (Endpoint e : {Endpoint::kSearch, Endpoint::kIndex, Endpoint::kStats}) {
      clients.emplace_back([&, e] {
        Client client(2);
        for (int batch = 0; std::chrono::steady_clock::now() < deadline;
             ++batch) {
          std::string name =
              std::string(endpoint_name(e)) + "/" + std::to_string(batch % 10);
          auto label = std::make_shared<andweorc::Label>("batch", name.c_str());
          for (int i = 0; i < 50; ++i) {
            client.wait_for_room();
            uint64_t n = sent.fetch_add(1);
            pool.submit(Request{e, n * 0x9E3779B97F4A7C15ull, label, &client});
          }
        }
        client.drain();
      });
    }
    for (auto& c : clients) c.join();
    checksum = pool.checksum();
  }
  std::printf("sent %llu requests, checksum %llx\n",
              (unsigned long long)sent.load(), (unsigned long long)checksum);
  return 0;
}
