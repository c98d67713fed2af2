// dup2_low.cc: dup2s one of its files onto every low descriptor number
// (3..63), as shells and daemons do to set up fixed numbers, writes through
// each, then closes them. A profiler file at one of those numbers must move
// away instead of being replaced or written into.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static void* worker(void*) {
  burn_ms(200);
  return nullptr;
}

int main(int argc, char** argv) {
  bool three = argc > 1 && strcmp(argv[1], "dup3") == 0;
  pthread_t t;
  pthread_create(&t, nullptr, worker, nullptr);
  int base = open("log.txt", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  int target = 64;
  if (three)
    dup3(base, target, O_CLOEXEC);
  else
    dup2(base, target);
  close(base);
  for (int fd = 3; fd < 64; ++fd) {
    int rc = three ? dup3(target, fd, 0) : dup2(target, fd);
    if (rc != fd) printf("dup onto %d failed\n", fd);
  }
  for (int round = 0; round < 20; ++round) {
    burn_ms(10);
    for (int fd = 3; fd < 64; fd += 7) {
      char line[64];
      int n = snprintf(line, sizeof line, "round %d via %d\n", round, fd);
      if (write(fd, line, size_t(n)) != n) printf("write via %d failed\n", fd);
    }
  }
  pthread_join(t, nullptr);
  for (int fd = 3; fd <= 64; ++fd) close(fd);
  printf("done\n");
  return 0;
}
