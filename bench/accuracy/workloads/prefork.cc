// prefork: a prefork server in miniature (issue 15). The master forks 2
// worker processes and only waits for them; each worker serves half of the
// units, one unit = parse (40k) then handle (120k), and counts "unit". The
// workers run in parallel on the 2 cores, so the program's time is a
// worker's time: handle is 75% of it, parse 25%.
// True effects of speeding by s: handle 0.75 s, parse 0.25 s.
// The progress point and the regions run only in the workers: a profiler
// that runs experiments in the master alone sees neither.
// BOTTLENECK:handle
#include <andweorc/andweorc.h>

#include <sys/wait.h>
#include <cerrno>
#include <unistd.h>

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

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 9600);
  const uint64_t n_parse = accuracy::iterations(40000, "PARSE");
  const uint64_t n_handle = accuracy::iterations(120000, "HANDLE");
  constexpr int kWorkers = 2;
  accuracy::Stopwatch sw;
  for (int w = 0; w < kWorkers; ++w) {
    pid_t pid = fork();
    if (pid < 0) accuracy::die("fork", std::strerror(errno));
    if (pid == 0) {
      uint64_t x = 3 + uint64_t(w);
      uint64_t mine = units / kWorkers + (uint64_t(w) < units % kWorkers ? 1 : 0);
      for (uint64_t u = 0; u < mine; ++u) {
        x = parse(x + u, n_parse);
        x = handle(x, n_handle);
        ANDWEORC_PROGRESS("unit");
      }
      std::exit(x == 0 ? 3 : 0);
    }
  }
  int status = 0;
  for (int w = 0; w < kWorkers; ++w) {
    if (wait(&status) < 0) accuracy::die("wait", std::strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) accuracy::die("worker", "failed");
  }
  accuracy::report(units, sw, 1);
  return 0;
}
