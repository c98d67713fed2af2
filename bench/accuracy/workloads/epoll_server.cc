// epoll_server: an in-process request/response server. A client thread keeps
// 2 requests in flight on each of 4 connections (AF_UNIX SOCK_SEQPACKET
// socketpairs: local only, one message per request); an event-loop thread
// waits in epoll_wait, reads each request, parses it (CPU) and queues it;
// two worker threads handle requests (CPU) and write the response back on the
// request's connection. One unit = one response received by the client; each
// request is also a latency point ("request": BEGIN at send, END at receive).
// Work per request: parse 15k iterations (event loop), handle 60k (worker).
// Four threads share the 2 cores, so the run is CPU-bound overall: the true
// effect of a region is close to its share of all CPU time (measured; see
// README.md), not Amdahl on one thread.
// BOTTLENECK:handle
#include <andweorc/andweorc.h>
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t parse(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:parse
  return x;
}

__attribute__((noinline)) static uint64_t handle(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:handle
  return x;
}

namespace {

constexpr int kConns = 4;
constexpr int kWindow = 2;  // requests in flight per connection

struct Msg {
  uint64_t id;
  uint64_t payload;
};

struct Job {
  int fd;
  Msg msg;
};

struct Server {
  std::mutex m;
  std::condition_variable cv;
  std::deque<Job> jobs;
  bool quit = false;
};

void check(bool ok, const char* what) {
  if (!ok) accuracy::die(what, "system call failed");
}

void event_loop(Server& s, const int* fds, int stop_fd, uint64_t n_parse) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  check(ep >= 0, "epoll_create1");
  for (int i = 0; i < kConns; ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fds[i];
    check(epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) == 0, "epoll_ctl");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = stop_fd;
  check(epoll_ctl(ep, EPOLL_CTL_ADD, stop_fd, &ev) == 0, "epoll_ctl");
  epoll_event ready[kConns + 1];
  for (;;) {
    int n = epoll_wait(ep, ready, kConns + 1, -1);
    if (n < 0) continue;  // EINTR (a profiler's signals)
    for (int i = 0; i < n; ++i) {
      int fd = ready[i].data.fd;
      if (fd == stop_fd) {
        close(ep);
        return;
      }
      Msg msg;
      ssize_t r = recv(fd, &msg, sizeof msg, MSG_DONTWAIT);
      if (r != static_cast<ssize_t>(sizeof msg)) continue;  // EAGAIN or EINTR: epoll reports it again
      msg.payload = parse(msg.payload, n_parse);
      {
        std::lock_guard<std::mutex> lk(s.m);
        s.jobs.push_back(Job{fd, msg});
      }
      s.cv.notify_one();
    }
  }
}

void worker(Server& s, uint64_t n_handle) {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lk(s.m);
      s.cv.wait(lk, [&] { return !s.jobs.empty() || s.quit; });
      if (s.jobs.empty()) return;
      job = s.jobs.front();
      s.jobs.pop_front();
    }
    job.msg.payload = handle(job.msg.payload, n_handle);
    ssize_t w;
    do w = send(job.fd, &job.msg, sizeof job.msg, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    check(w == static_cast<ssize_t>(sizeof job.msg), "send response");
  }
}

// Sends `units` requests, at most kWindow in flight per connection; returns
// the xor of the responses.
uint64_t client(const int* fds, uint64_t units) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  check(ep >= 0, "epoll_create1");
  uint64_t sent = 0, received = 0, acc = 0;
  auto send_one = [&](int fd) {
    Msg msg{sent, sent * 2654435761u + 1};
    ++sent;
    ANDWEORC_BEGIN("request");
    ssize_t w;
    do w = send(fd, &msg, sizeof msg, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    check(w == static_cast<ssize_t>(sizeof msg), "send request");
  };
  for (int i = 0; i < kConns; ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fds[i];
    check(epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) == 0, "epoll_ctl");
    for (int k = 0; k < kWindow && sent < units; ++k) send_one(fds[i]);
  }
  epoll_event ready[kConns];
  while (received < units) {
    int n = epoll_wait(ep, ready, kConns, -1);
    for (int i = 0; i < n; ++i) {
      Msg msg;
      ssize_t r = recv(ready[i].data.fd, &msg, sizeof msg, MSG_DONTWAIT);
      if (r != static_cast<ssize_t>(sizeof msg)) continue;
      acc ^= msg.payload;
      ++received;
      ANDWEORC_END("request");
      ANDWEORC_PROGRESS("unit");
      if (sent < units) send_one(ready[i].data.fd);
    }
  }
  close(ep);
  return acc;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 8000);
  const uint64_t n_parse = accuracy::iterations(15000, "PARSE");
  const uint64_t n_handle = accuracy::iterations(60000, "HANDLE");
  int client_fds[kConns], server_fds[kConns];
  for (int i = 0; i < kConns; ++i) {
    int sv[2];
    check(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0, "socketpair");
    client_fds[i] = sv[0];
    server_fds[i] = sv[1];
  }
  int stop_fd = eventfd(0, EFD_CLOEXEC);
  check(stop_fd >= 0, "eventfd");
  Server s;
  accuracy::Stopwatch sw;
  std::thread loop(event_loop, std::ref(s), server_fds, stop_fd, n_parse);
  std::thread w1(worker, std::ref(s), n_handle), w2(worker, std::ref(s), n_handle);
  uint64_t acc = client(client_fds, units);
  uint64_t one = 1;
  check(write(stop_fd, &one, sizeof one) == sizeof one, "eventfd write");
  loop.join();
  {
    std::lock_guard<std::mutex> lk(s.m);
    s.quit = true;
  }
  s.cv.notify_all();
  w1.join();
  w2.join();
  accuracy::report(units, sw, acc);
  for (int i = 0; i < kConns; ++i) {
    close(client_fds[i]);
    close(server_fds[i]);
  }
  close(stop_fd);
  return 0;
}
