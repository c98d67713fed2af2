// fork_exit.cc: a prefork server / test runner: forks children that exit at
// once, and waits for each. Prints the fastest and slowest child's lifetime
// in ms to stderr (the test reads them); stdout is the same with and without
// andweorc.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

int main() {
  burn_ms(200);  // the profiler's coordinator is up by now
  double slowest = 0;
  double fastest = 1e12;
  int ok = 0;
  for (int i = 0; i < 10; ++i) {
    double start = now_ms();
    pid_t pid = fork();
    if (pid == 0) exit(i % 2 == 0 ? 0 : 3);  // exit(): destructors run
    int status = 0;
    waitpid(pid, &status, 0);
    double ms = now_ms() - start;
    if (ms > slowest) slowest = ms;
    if (ms < fastest) fastest = ms;
    if (WIFEXITED(status) && WEXITSTATUS(status) == (i % 2 == 0 ? 0 : 3)) ++ok;
  }
  printf("%d children exited as expected\n", ok);
  fprintf(stderr, "fastest child ms: %.1f\n", fastest);
  fprintf(stderr, "slowest child ms: %.1f\n", slowest);
  return 0;
}
