// thread_pool_server: a request loop served by a thread pool.
//
// A client thread submits requests to a bounded queue; two pool threads take
// them, parse them (parse_request, cheap) and render a response
// (render_response, the expensive part), then complete them. Each request
// is a throughput point ("request_done") and a latency point ("request":
// from submission to completion). The program links libandweorc and runs
// the causal experiments in-process with andweorc::Runner; the same
// experiments are then analyzed for the latency point.
//
//   ANDWEORC_ENABLED=1 thread_pool_server [profile.json]
#include <andweorc/runner.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

namespace {

constexpr uint64_t kMul = 0xD6E8FEB86659FD93ull;

// One line per loop: samples are attributed to lines.
// clang-format off
__attribute__((noinline)) uint64_t parse_request(uint64_t x) {
  for (int i = 0; i < 6000; ++i) { x = (x ^ (x >> 32)) * kMul + 1; asm volatile("" : "+r"(x)); }  // PARSE_LINE
  return x;
}

__attribute__((noinline)) uint64_t render_response(uint64_t x) {
  for (int i = 0; i < 30000; ++i) { x = (x ^ (x >> 32)) * kMul + 2; asm volatile("" : "+r"(x)); }  // RENDER_LINE
  return x;
}
// clang-format on

struct Request {
  uint64_t payload;
  uint64_t token;  // the submitter's delay count (andweorc.h hand-offs)
};

// A fixed pool of workers draining a bounded request queue.
class Server {
 public:
  explicit Server(int workers) {
    for (int i = 0; i < workers; ++i) pool_.emplace_back([this] { serve(); });
  }
  // Blocks while the queue is full (the client is closed-loop).
  bool submit(uint64_t payload) {
    std::unique_lock<std::mutex> lock(m_);
    space_.wait(lock, [&] { return stopping_ || queue_.size() < 16; });
    if (stopping_) return false;
    ANDWEORC_BEGIN("request");
    queue_.push_back(Request{payload, andweorc_task_token()});
    ready_.notify_one();
    return true;
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stopping_ = true;
    }
    ready_.notify_all();
    space_.notify_all();
    for (auto& t : pool_) t.join();
  }
  uint64_t checksum() const { return checksum_.load(); }

 private:
  void serve() {
    for (;;) {
      Request r;
      {
        std::unique_lock<std::mutex> lock(m_);
        ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        r = queue_.front();
        queue_.pop_front();
        space_.notify_one();
      }
      andweorc_task_adopt(r.token);
      uint64_t response = render_response(parse_request(r.payload));
      checksum_.fetch_xor(response, std::memory_order_relaxed);
      ANDWEORC_END("request");
      ANDWEORC_PROGRESS("request_done");
    }
  }

  std::mutex m_;
  std::condition_variable ready_, space_;
  std::deque<Request> queue_;
  bool stopping_ = false;
  std::vector<std::thread> pool_;
  std::atomic<uint64_t> checksum_{0};
};

}  // namespace

int main(int argc, char** argv) {
  andweorc::init();
  Server server(2);
  std::atomic<bool> done{false};
  std::thread client([&] {
    for (uint64_t n = 1; !done.load(std::memory_order_relaxed); ++n)
      if (!server.submit(n)) break;
  });

  andweorc::RunnerConfig config;
  config.max_lines = 3;
  config.repetitions = 3;
  config.seed = 5;
  andweorc::Results throughput = andweorc::Runner(config).run("request_done");
  done = true;
  server.stop();
  client.join();

  throughput.print(std::cout);
  throughput.for_point("request").print(std::cout);
  if (throughput.ok() && argc > 1) {
    std::string error;
    if (!throughput.write(argv[1], &error)) {
      std::cerr << "thread_pool_server: " << error << "\n";
      return 1;
    }
  }
  std::cout << "checksum " << (server.checksum() & 0xffff) << "\n";
  return throughput.ok() || !andweorc::enabled() ? 0 : 1;
}
