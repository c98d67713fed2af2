// close_all.cc: a daemon-style program that closes every descriptor above
// stderr (closefrom, close_range, a close loop, or syscall(SYS_close)) while
// threads run, then opens its own files, which get the lowest numbers.
// Under a profiler that keeps its files at low numbers, the profiler's
// records would land in these files or its threads would close them.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

static volatile int g_go = 0;

static void* worker(void*) {
  while (!g_go) burn_ms(1);
  burn_ms(150);
  return nullptr;
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "closefrom";
  pthread_t threads[2];
  for (auto& t : threads) pthread_create(&t, nullptr, worker, nullptr);
  burn_ms(50);
  if (strcmp(how, "closefrom") == 0) {
    closefrom(3);
  } else if (strcmp(how, "close_range") == 0) {
    close_range(3, ~0U, 0);
  } else if (strcmp(how, "loop") == 0) {
    for (int fd = 3; fd < 65536; ++fd) close(fd);
  } else if (strcmp(how, "syscall") == 0) {
    for (int fd = 3; fd < 4096; ++fd) syscall(SYS_close, fd);
  }
  // The program's own files, at the numbers it expects.
  int fds[4];
  char name[32];
  for (int i = 0; i < 4; ++i) {
    snprintf(name, sizeof name, "out%d.txt", i);
    fds[i] = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    printf("%s is fd %d\n", name, fds[i]);
  }
  g_go = 1;
  for (int round = 0; round < 20; ++round) {
    burn_ms(10);
    for (int i = 0; i < 4; ++i) {
      char line[64];
      int n = snprintf(line, sizeof line, "round %d file %d\n", round, i);
      if (write(fds[i], line, size_t(n)) != n) printf("write %d failed\n", i);
    }
  }
  for (auto& t : threads) pthread_join(t, nullptr);
  // Thread exit must not have closed any of ours.
  for (int i = 0; i < 4; ++i) {
    if (write(fds[i], "end\n", 4) != 4) printf("final write %d failed\n", i);
    close(fds[i]);
  }
  printf("done\n");
  return 0;
}
