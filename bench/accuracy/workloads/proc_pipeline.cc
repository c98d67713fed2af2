// proc_pipeline: two processes over a pipe (issue 15). The parent produces
// (100k per item) and writes each item (8 bytes) to a pipe; a forked child
// reads them and consumes (50k per item), counting "unit". The producer is
// the slower stage; the consumer waits in read() on an empty pipe.
// True effects of speeding by s (s < 0.5 keeps the producer the slower one):
//   produce: s        consume: 0
// Cross-process delay inheritance: while `produce` is sped up, the consumer
// is woken through the pipe by a writer that paid its delays first.
// BOTTLENECK:produce
#include <andweorc/andweorc.h>

#include <sys/wait.h>
#include <cerrno>
#include <unistd.h>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t produce(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:produce
  return x;
}

__attribute__((noinline)) static uint64_t consume(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:consume
  return x;
}

static bool read_item(int fd, uint64_t* v) {
  size_t got = 0;
  while (got < sizeof *v) {
    ssize_t n = read(fd, reinterpret_cast<char*>(v) + got, sizeof *v - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += size_t(n);
  }
  return true;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 7000);
  const uint64_t n_prod = accuracy::iterations(100000, "PRODUCE");
  const uint64_t n_cons = accuracy::iterations(50000, "CONSUME");
  int fds[2];
  if (pipe(fds) != 0) accuracy::die("pipe", std::strerror(errno));
  accuracy::Stopwatch sw;
  pid_t pid = fork();
  if (pid < 0) accuracy::die("fork", std::strerror(errno));
  if (pid == 0) {
    close(fds[1]);
    uint64_t y = 5, v = 0, n = 0;
    while (read_item(fds[0], &v)) {
      y = consume(y ^ v, n_cons);
      ANDWEORC_PROGRESS("unit");
      ++n;
    }
    std::exit(n == units && y != 0 ? 0 : 3);
  }
  close(fds[0]);
  uint64_t x = 7;
  for (uint64_t u = 0; u < units; ++u) {
    x = produce(x + u, n_prod);
    if (write(fds[1], &x, sizeof x) != ssize_t(sizeof x)) accuracy::die("write", std::strerror(errno));
  }
  close(fds[1]);
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) accuracy::die("waitpid", std::strerror(errno));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) accuracy::die("consumer", "failed");
  accuracy::report(units, sw, x);
  return 0;
}
