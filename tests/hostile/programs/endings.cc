// endings.cc: the ways a program ends or changes itself (argv[1] picks one):
// crash, abort, SIGKILL, exit() from a thread, fork + exec, vfork + exec,
// a progress point never reached, a tiny alternate signal stack used while
// sampled, SCHED_FIFO threads. Each writes a file and prints what it did.
#include <andweorc/andweorc.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

static void note(const char* text) {
  int fd = open("ending.txt", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (write(fd, text, strlen(text)) < 0) _exit(99);
  close(fd);
}

static void* exit_from_thread(void*) {
  burn_ms(100);
  note("thread calls exit\n");
  exit(5);
}

static volatile sig_atomic_t g_usr1 = 0;
static void on_usr1(int) { g_usr1 = g_usr1 + 1; }

static void* fifo_worker(void*) {
  burn_ms(100);
  return nullptr;
}

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "";
  printf("ending: %s\n", how);
  fflush(stdout);
  burn_ms(150);
  note(how);
  note("\n");
  if (strcmp(how, "segv") == 0) {
    volatile int* p = nullptr;
    *p = 1;
  } else if (strcmp(how, "abort") == 0) {
    abort();
  } else if (strcmp(how, "kill9") == 0) {
    raise(SIGKILL);
  } else if (strcmp(how, "thread_exit") == 0) {
    pthread_t t;
    pthread_create(&t, nullptr, exit_from_thread, nullptr);
    for (;;) pause();
  } else if (strcmp(how, "fork_exec") == 0 || strcmp(how, "vfork_exec") == 0) {
    // The parent's own SIGPROF handler; the child resets it before exec
    // (as posix_spawn implementations do), which must not touch ours.
    signal(SIGPROF, on_usr1);
    pid_t pid = strcmp(how, "fork_exec") == 0 ? fork() : vfork();
    if (pid == 0) {
      signal(SIGPROF, SIG_DFL);
      execl(argv[0], argv[0], "exec_child", (char*)nullptr);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child status %d\n", WEXITSTATUS(status));
    struct sigaction now;
    sigaction(SIGPROF, nullptr, &now);
    printf("parent's SIGPROF handler %s\n",
           now.sa_handler == on_usr1 ? "kept" : "lost");
  } else if (strcmp(how, "exec_child") == 0) {
    note("exec child ran\n");
    return 4;
  } else if (strcmp(how, "no_point") == 0) {
    if (argc > 99) ANDWEORC_PROGRESS("never reached");
  } else if (strcmp(how, "altstack") == 0) {
    // A 4 KiB alternate stack (the classic MINSIGSTKSZ is 2 KiB); the
    // program's handler runs there while the profiler samples it.
    static char stack[4096];
    stack_t ss{};
    ss.ss_sp = stack;
    ss.ss_size = sizeof stack;
    sigaltstack(&ss, nullptr);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, nullptr);
    for (int i = 0; i < 2000; ++i) {
      raise(SIGUSR1);
      burn_ms(0);
    }
    printf("handled %d\n", int(g_usr1));
  } else if (strcmp(how, "sched_fifo") == 0) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
    sched_param sp{};
    sp.sched_priority = 1;
    pthread_attr_setschedparam(&attr, &sp);
    pthread_t t;
    int rc = pthread_create(&t, &attr, fifo_worker, nullptr);
    if (rc == 0) pthread_join(t, nullptr);
    printf("fifo thread: %s\n", rc == 0 ? "ran" : "not permitted");
  }
  note("returned\n");
  return 0;
}
