// shapes: one program per "shape" of load, for the overhead (bench/overhead)
// and timing-fidelity (bench/fidelity) benchmarks. Runs for a fixed time and
// prints `units=<n> seconds=<s> throughput=<units/s>` (the accuracy suite's
// result line), so the scripts compare throughput measured inside the
// program, start-up and exit excluded.
//
//   shapes <shape> <threads> [seconds]
//   cpu      busy threads, ~20 us of work per unit, nothing else
//   lock     threads take one std::mutex around a tiny update (lock-heavy)
//   sleep    ~20 us of work, then usleep(50)                (sleep-heavy)
//   condvar  ~20 us of work, then cv.wait_for(50 us), never notified
//   poll     ~20 us of work, then poll() on an empty pipe, 1 ms timeout
//   sleep_twin, condvar_twin, poll_twin: the same loops with the wait call
//            itself removed (everything else kept): the sampling cost of
//            the same program without its waits (bench/fidelity)
//   server   epoll echo server on TCP loopback: <threads> server threads,
//            each with its own epoll, and as many client threads with 4
//            connections each, 1 request in flight per connection
//            (context-switch and syscall heavy)
// The result line also has cpu_us=<CPU time per unit, all threads of the
// process, user + system, in microseconds>: on a shared machine it is far
// less noisy than throughput, and includes the profiler's own threads; and,
// for the waiting shapes, wait_us=<median time one wait really took>: the
// timing the program observes (timer slack included), steadier than
// throughput under load. vcsw= is voluntary context switches per unit and
// maxrss_kb= the process's peak resident memory (the runtime's included).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
std::atomic<bool> g_stop{false};
// A *_twin shape: every loop skips its wait call and does the rest.
bool g_no_wait = false;

// Every 8th wait's duration, per thread (at most kMaxWaits of them).
constexpr size_t kMaxWaits = 4096;
std::mutex g_waits_lock;
std::vector<double> g_waits;  // microseconds, merged at thread end

class WaitTimes {
 public:
  void start() { t0_ = Clock::now(); }
  void stop() {
    if ((n_++ & 7) != 0 || mine_.size() >= kMaxWaits) return;
    mine_.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - t0_).count());
  }
  ~WaitTimes() {
    std::lock_guard<std::mutex> guard(g_waits_lock);
    g_waits.insert(g_waits.end(), mine_.begin(), mine_.end());
  }

 private:
  Clock::time_point t0_;
  uint64_t n_ = 0;
  std::vector<double> mine_;
};

void print_result(uint64_t units, double seconds) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double cpu = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  double wait = 0;
  if (!g_waits.empty()) {
    std::nth_element(g_waits.begin(), g_waits.begin() + g_waits.size() / 2,
                     g_waits.end());
    wait = g_waits[g_waits.size() / 2];
  }
  // Voluntary context switches per unit (all threads): how often a thread
  // blocked, e.g. on a contended mutex; a profiler that changes the lock's
  // dynamics changes this.
  double vcsw = units ? double(ru.ru_nvcsw) / double(units) : 0.0;
  std::printf("units=%" PRIu64
              " seconds=%.6f throughput=%.3f cpu_us=%.3f "
              "wait_us=%.2f vcsw=%.5f maxrss_kb=%ld\n",
              units, seconds, double(units) / seconds,
              units ? cpu * 1e6 / double(units) : 0.0, wait, vcsw,
              ru.ru_maxrss);
}

[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::exit(2);
}

// ~20 us of dependent arithmetic on this machine (about 5 cycles a step).
__attribute__((noinline)) uint64_t work(uint64_t x, int steps) {
  for (int i = 0; i < steps; ++i) {
    x = (x ^ (x >> 29)) * 0xBF58476D1CE4E5B9ull;
    asm volatile("" : "+r"(x));
  }
  return x;
}
constexpr int kSteps = 10000;

uint64_t cpu_loop() {
  uint64_t n = 0, x = 1;
  while (!g_stop.load(std::memory_order_relaxed)) x = work(x, kSteps), ++n;
  return n + (x == 0);
}

uint64_t sleep_loop() {
  WaitTimes w;
  uint64_t n = 0, x = 1;
  while (!g_stop.load(std::memory_order_relaxed)) {
    x = work(x, kSteps), ++n;
    w.start();
    if (!g_no_wait) usleep(50);
    w.stop();
  }
  return n + (x == 0);
}

uint64_t condvar_loop() {
  std::mutex m;
  std::condition_variable cv;
  WaitTimes w;
  uint64_t n = 0, x = 1;
  while (!g_stop.load(std::memory_order_relaxed)) {
    x = work(x, kSteps), ++n;
    std::unique_lock<std::mutex> lock(m);
    w.start();
    if (!g_no_wait) cv.wait_for(lock, std::chrono::microseconds(50));
    w.stop();
  }
  return n + (x == 0);
}

uint64_t poll_loop() {
  int p[2];
  if (pipe(p) != 0) die("pipe");
  WaitTimes w;
  uint64_t n = 0, x = 1;
  while (!g_stop.load(std::memory_order_relaxed)) {
    x = work(x, kSteps), ++n;
    pollfd fd{p[0], POLLIN, 0};
    w.start();
    if (!g_no_wait) poll(&fd, 1, 1);
    w.stop();
  }
  close(p[0]);
  close(p[1]);
  return n + (x == 0);
}

std::mutex g_lock;
uint64_t g_shared = 0;
uint64_t lock_loop() {
  uint64_t n = 0, x = 1;
  while (!g_stop.load(std::memory_order_relaxed)) {
    for (int i = 0; i < 100; ++i) {
      x = work(x, 20);
      std::lock_guard<std::mutex> guard(g_lock);
      g_shared += x;
    }
    ++n;  // one unit = 100 lock/unlock pairs
  }
  return n + (x == 0);
}

// ---- loopback echo server ----
constexpr int kConnsPerClient = 4;
constexpr size_t kMsg = 64;

int listen_socket(uint16_t* port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) die("socket");
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) die("bind");
  if (listen(s, 256) != 0) die("listen");
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return s;
}

int connect_to(uint16_t port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) die("socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    die("connect");
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return s;
}

// One server thread: echoes every complete message of its connections,
// after a little work (a parse), until the clients hang up.
void serve(std::vector<int> fds) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  for (int fd : fds) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  }
  size_t open = fds.size();
  uint64_t x = 1;
  epoll_event evs[16];
  char buf[kMsg];
  while (open > 0) {
    int n = epoll_wait(ep, evs, 16, 100);
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      ssize_t r = recv(fd, buf, sizeof buf, MSG_WAITALL);
      if (r <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        --open;
        continue;
      }
      x = work(x, 200);
      buf[0] = char(x);
      if (send(fd, buf, size_t(r), MSG_NOSIGNAL) != r) die("send");
    }
  }
  close(ep);
}

// One client thread: kConnsPerClient connections, one request in flight on
// each; counts replies until told to stop.
uint64_t client(std::vector<int> fds) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  char buf[kMsg] = {};
  for (int fd : fds) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    if (send(fd, buf, kMsg, MSG_NOSIGNAL) != ssize_t(kMsg)) die("send");
  }
  uint64_t n = 0;
  epoll_event evs[kConnsPerClient];
  while (!g_stop.load(std::memory_order_relaxed)) {
    int k = epoll_wait(ep, evs, kConnsPerClient, 100);
    for (int i = 0; i < k; ++i) {
      int fd = evs[i].data.fd;
      if (recv(fd, buf, kMsg, MSG_WAITALL) != ssize_t(kMsg)) die("recv");
      ++n;
      if (send(fd, buf, kMsg, MSG_NOSIGNAL) != ssize_t(kMsg)) die("send");
    }
  }
  for (int fd : fds) shutdown(fd, SHUT_WR);
  // Drain the last replies so the server sees EOF, not a reset.
  for (int fd : fds) {
    while (recv(fd, buf, kMsg, 0) > 0) {
    }
    close(fd);
  }
  close(ep);
  return n;
}

uint64_t run_server(int threads, double seconds) {
  uint16_t port = 0;
  int ls = listen_socket(&port);
  std::vector<std::vector<int>> client_fds(threads), server_fds(threads);
  for (int c = 0; c < threads; ++c)
    for (int i = 0; i < kConnsPerClient; ++i) {
      client_fds[c].push_back(connect_to(port));
      int s = accept(ls, nullptr, nullptr);
      if (s < 0) die("accept");
      server_fds[(c * kConnsPerClient + i) % threads].push_back(s);
    }
  close(ls);
  std::vector<std::thread> servers;
  for (int t = 0; t < threads; ++t) servers.emplace_back(serve, server_fds[t]);
  std::vector<uint64_t> counts(threads);
  std::vector<std::thread> clients;
  auto start = Clock::now();
  for (int c = 0; c < threads; ++c)
    clients.emplace_back([&, c] { counts[c] = client(client_fds[c]); });
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  g_stop = true;
  for (auto& t : clients) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& t : servers) t.join();
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  print_result(total, elapsed);
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: shapes cpu|lock|sleep|condvar|poll[_twin]|server "
                 "<threads> [seconds]\n");
    return 2;
  }
  std::string shape = argv[1];
  int threads = std::atoi(argv[2]);
  double seconds = argc > 3 ? std::atof(argv[3]) : 2.0;
  if (threads < 1 || threads > 4096 || !(seconds > 0)) {
    std::fprintf(stderr, "shapes: bad thread count or duration\n");
    return 2;
  }
  if (shape == "server") {
    run_server(threads, seconds);
    return 0;
  }
  const std::string twin = "_twin";
  if (shape.size() > twin.size() &&
      shape.compare(shape.size() - twin.size(), twin.size(), twin) == 0) {
    g_no_wait = true;
    shape.resize(shape.size() - twin.size());
    if (shape != "sleep" && shape != "condvar" && shape != "poll") shape = "";
  }
  uint64_t (*loop)() = nullptr;
  if (shape == "cpu") loop = cpu_loop;
  if (shape == "lock") loop = lock_loop;
  if (shape == "sleep") loop = sleep_loop;
  if (shape == "condvar") loop = condvar_loop;
  if (shape == "poll") loop = poll_loop;
  if (loop == nullptr) {
    std::fprintf(stderr, "shapes: unknown shape '%s'\n", shape.c_str());
    return 2;
  }
  std::vector<uint64_t> counts(threads);
  std::vector<std::thread> pool;
  auto start = Clock::now();
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { counts[t] = loop(); });
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  g_stop = true;
  for (auto& t : pool) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  print_result(total, elapsed);
  return 0;
}
