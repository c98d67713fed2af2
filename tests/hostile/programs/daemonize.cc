// daemonize.cc: detaches with daemon() (argv[1] = "daemon") or a double fork
// ("double_fork"); the detached process works on after the command has
// exited, then writes its result file.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static void work_and_report() {
  unsigned long x = burn_ms(300);
  int fd = open("detached.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char line[64];
  int n = snprintf(line, sizeof line, "detached work done %lu\n", x & 0);
  if (write(fd, line, size_t(n)) != n) exit(1);
  close(fd);
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "daemon";
  printf("starting %s\n", how);
  fflush(stdout);
  burn_ms(50);
  if (strcmp(how, "daemon") == 0) {
    if (daemon(1, 0) != 0) return 2;  // the parent _exits inside daemon()
    work_and_report();
    return 0;
  }
  pid_t first = fork();
  if (first == 0) {
    if (fork() == 0) {
      setsid();
      work_and_report();
      exit(0);
    }
    _exit(0);
  }
  waitpid(first, nullptr, 0);
  return 0;
}
