// One stage of a pipeline of two programs (issue 15), built twice: as
// pipe_produce (PRODUCER defined) it does produce_work per record and writes
// the record to standard output; as pipe_consume it reads records from
// standard input, does consume_work per record and counts "record". Run as
// `sh -c 'pipe_produce N | pipe_consume'`: two programs, neither the
// first process of the tree (the shell is). `pipe_consume fork` consumes
// in a child it forks first.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "andweorc/andweorc.h"

volatile uint64_t g_sink;

#ifdef PRODUCER
__attribute__((noinline)) uint64_t produce_work(uint64_t h) {
  for (int i = 0; i < 20000; ++i) h = h * 6364136223846793005ull + i;  // PRODUCE_LINE
  return h;
}

int main(int argc, char** argv) {
  long records = argc > 1 ? std::atol(argv[1]) : 10000;
  for (long r = 0; r < records; ++r) {
    g_sink = produce_work(g_sink);
    uint64_t record = g_sink;
    if (write(1, &record, sizeof record) != ssize_t(sizeof record)) return 1;
  }
  return 0;
}
#else
__attribute__((noinline)) uint64_t consume_work(uint64_t h) {
  for (int i = 0; i < 60000; ++i) h = h * 2862933555777941757ull + i;  // CONSUME_LINE
  return h;
}

// `pipe_consume fork`: a child forked at once consumes (as a prefork
// server's worker does, before the profiler's table of lines can exist).
int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == 'f') {
    pid_t child = fork();
    if (child < 0) return 1;
    if (child > 0) {
      int status = 0;
      if (waitpid(child, &status, 0) != child) return 1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
  }
  uint64_t record;
  size_t have = 0;
  for (;;) {
    ssize_t n = read(0, reinterpret_cast<char*>(&record) + have,
                     sizeof record - have);
    if (n <= 0) return n == 0 ? 0 : 1;
    have += size_t(n);
    if (have < sizeof record) continue;
    have = 0;
    g_sink = consume_work(g_sink ^ record);
    ANDWEORC_PROGRESS("record");
  }
}
#endif
