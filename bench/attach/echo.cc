// echo.cc: a loopback echo server and its load, separate processes, for
// bench/attach/attach_server.sh: `andweorc attach` visits the server while
// the client counts completed and failed requests per interval.
//   echo server PORT THREADS      epoll workers, each owning some of the
//                                 connections; runs until killed
//   echo client PORT CONNS SECONDS INTERVAL_MS
//                                 CONNS connections, 2 client threads, one
//                                 64-byte request in flight per connection;
//                                 prints "t_ms ok failed" per interval
// A request fails when the connection breaks or its reply takes over 1 s.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kMessage = 64;

void serve(int ep) {
  epoll_event evs[64];
  char buf[4096];
  for (;;) {
    int n = epoll_wait(ep, evs, 64, -1);
    for (int i = 0; i < n; ++i) {
      int fd = evs[i].data.fd;
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
        close(fd);
        continue;
      }
      for (ssize_t off = 0; off < r;) {
        ssize_t w = write(fd, buf + off, size_t(r - off));
        if (w <= 0) break;
        off += w;
      }
    }
  }
}

int run_server(int port, int threads) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(ls, (sockaddr*)&a, sizeof a) != 0 || listen(ls, 512) != 0) {
    perror("bind/listen");
    return 1;
  }
  std::vector<int> eps;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    eps.push_back(epoll_create1(EPOLL_CLOEXEC));
    workers.emplace_back(serve, eps.back());
  }
  std::printf("ready\n");
  std::fflush(stdout);
  for (int next = 0;; ++next) {  // the main thread only accepts
    int fd = accept(ls, nullptr, nullptr);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(eps[size_t(next) % eps.size()], EPOLL_CTL_ADD, fd, &ev);
  }
}

std::atomic<uint64_t> g_ok{0}, g_failed{0};
std::atomic<bool> g_done{false};

int connect_to(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (sockaddr*)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Keeps one request in flight on each of its connections.
void load(int port, int conns) {
  std::vector<int> fds(size_t(conns), -1);
  std::vector<int> got(size_t(conns), 0);
  std::vector<std::chrono::steady_clock::time_point> sent(fds.size());
  char msg[kMessage];
  std::memset(msg, 'x', sizeof msg);
  auto send_one = [&](size_t i) {
    if (fds[i] < 0) fds[i] = connect_to(port);
    if (fds[i] < 0 || write(fds[i], msg, sizeof msg) != kMessage) {
      g_failed.fetch_add(1);
      if (fds[i] >= 0) close(fds[i]);
      fds[i] = -1;
      return;
    }
    got[i] = 0;
    sent[i] = std::chrono::steady_clock::now();
  };
  for (size_t i = 0; i < fds.size(); ++i) send_one(i);
  std::vector<pollfd> pfds(fds.size());
  char buf[kMessage];
  while (!g_done.load()) {
    for (size_t i = 0; i < fds.size(); ++i) pfds[i] = {fds[i], POLLIN, 0};
    poll(pfds.data(), pfds.size(), 50);
    auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i] < 0) {
        send_one(i);
        continue;
      }
      if (pfds[i].revents & (POLLIN | POLLERR | POLLHUP)) {
        ssize_t r = read(fds[i], buf, size_t(kMessage - got[i]));
        if (r <= 0) {
          g_failed.fetch_add(1);
          close(fds[i]);
          fds[i] = -1;
          continue;
        }
        got[i] += int(r);
        if (got[i] == kMessage) {
          g_ok.fetch_add(1);
          send_one(i);
        }
      } else if (now - sent[i] > std::chrono::seconds(1)) {
        g_failed.fetch_add(1);  // too slow: counted, and retried fresh
        close(fds[i]);
        fds[i] = -1;
      }
    }
  }
  for (int fd : fds)
    if (fd >= 0) close(fd);
}

int run_client(int port, int conns, double seconds, int interval_ms) {
  std::thread a(load, port, conns / 2), b(load, port, conns - conns / 2);
  auto start = std::chrono::steady_clock::now();
  uint64_t ok0 = 0, failed0 = 0;
  for (int tick = 1;; ++tick) {
    std::this_thread::sleep_until(
        start + std::chrono::milliseconds(tick * interval_ms));
    uint64_t ok = g_ok.load(), failed = g_failed.load();
    std::printf("%d %llu %llu\n", tick * interval_ms,
                (unsigned long long)(ok - ok0),
                (unsigned long long)(failed - failed0));
    std::fflush(stdout);
    ok0 = ok;
    failed0 = failed;
    if (tick * interval_ms >= seconds * 1000) break;
  }
  g_done = true;
  a.join();
  b.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "server" && argc == 4)
    return run_server(std::atoi(argv[2]), std::atoi(argv[3]));
  if (mode == "client" && argc == 6)
    return run_client(std::atoi(argv[2]), std::atoi(argv[3]),
                      std::atof(argv[4]), std::atoi(argv[5]));
  std::fprintf(stderr,
               "usage: echo server PORT THREADS | client PORT CONNS SECONDS "
               "INTERVAL_MS\n");
  return 2;
}
