// client_server_tcp: client_server over loopback TCP instead of a Unix
// socket (issue 15): same regions, same truth, same protocol. The parent is
// the server: it listens on 127.0.0.1 at a port the kernel picks (TCP_NODELAY
// on both ends, so that Nagle never holds a request back) and, for each
// request (8 bytes), serves it (100k) and writes the
// response. A forked child is the client: it connects, keeps 4 requests in
// flight, prepares each request (25k) before sending it, and counts "unit"
// for each response it receives. The server is the slower stage and never
// waits (4 requests queued); the client, on the other core, waits in read()
// for responses most of the time.
// True effects of speeding by s (the server stays the slower stage):
//   serve: s        prepare: 0
// Cross-process delay inheritance over loopback TCP: while `serve` is sped
// up, the client is woken through the connection by a server that paid its
// delays, so the client is credited, not charged. SO_PEERCRED names no peer
// for TCP: the runtime finds the peer in the tree's table of endpoints.
// BOTTLENECK:serve
#include <andweorc/andweorc.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cerrno>
#include <unistd.h>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t serve(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:serve
  return x;
}

__attribute__((noinline)) static uint64_t prepare(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:prepare
  return x;
}

namespace {

constexpr uint64_t kWindow = 4;  // requests in flight

bool read_item(int fd, uint64_t* v) {
  size_t got = 0;
  while (got < sizeof *v) {
    ssize_t n = read(fd, reinterpret_cast<char*>(v) + got, sizeof *v - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += size_t(n);
  }
  return true;
}

void write_item(int fd, uint64_t v) {
  if (write(fd, &v, sizeof v) != ssize_t(sizeof v)) accuracy::die("write", std::strerror(errno));
}

void no_delay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
    accuracy::die("TCP_NODELAY", std::strerror(errno));
}

// The client: `units` requests, `kWindow` in flight; exits 0 when every
// response came back.
[[noreturn]] void client(const sockaddr_in& addr, uint64_t units, uint64_t n_prep) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    accuracy::die("connect", std::strerror(errno));
  no_delay(fd);
  uint64_t y = 5, sent = 0, received = 0, v = 0;
  for (; sent < units && sent < kWindow; ++sent) write_item(fd, y = prepare(y + sent, n_prep));
  while (received < units && read_item(fd, &v)) {
    ++received;
    ANDWEORC_PROGRESS("unit");
    if (sent < units) write_item(fd, y = prepare(y ^ v, n_prep)), ++sent;
  }
  std::exit(received == units && y != 0 ? 0 : 3);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 3000);
  const uint64_t n_serve = accuracy::iterations(100000, "SERVE");
  const uint64_t n_prep = accuracy::iterations(25000, "PREPARE");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // port 0: the kernel picks
  socklen_t len = sizeof addr;
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      listen(listener, 1) != 0 || getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    accuracy::die("listen", std::strerror(errno));
  accuracy::Stopwatch sw;
  pid_t pid = fork();
  if (pid < 0) accuracy::die("fork", std::strerror(errno));
  if (pid == 0) {
    close(listener);
    client(addr, units, n_prep);
  }
  int conn = accept(listener, nullptr, nullptr);
  if (conn < 0) accuracy::die("accept", std::strerror(errno));
  no_delay(conn);
  close(listener);
  uint64_t x = 7, v = 0, served = 0;
  while (read_item(conn, &v)) {
    x = serve(x ^ v, n_serve);
    write_item(conn, x);
    ++served;
  }
  close(conn);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) accuracy::die("waitpid", std::strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) accuracy::die("client", "failed");
  if (served != units) accuracy::die("server", "served a different number of requests");
  accuracy::report(units, sw, x);
  return 0;
}
