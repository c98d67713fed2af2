// fork_label.cc: a prefork server that makes a label before forking and
// applies it in the child (issue 12 item 13): the child's samples must carry
// the label, although the binding was recorded in the parent's raw file.
#include <andweorc/andweorc.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

__attribute__((noinline)) static unsigned long child_work() {
  return burn_ms(300);
}

int main() {
  andweorc::Label label("job", "forked");
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    unsigned long x = label.apply([] { return child_work(); });
    printf("child %lu\n", x & 0);
    fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("parent %d\n", WEXITSTATUS(status));
  return 0;
}
