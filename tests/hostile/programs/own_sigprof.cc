// own_sigprof.cc: a program with its own SIGPROF profiler (as gperftools):
// setitimer(ITIMER_PROF) and a handler, installed through one of the many
// libc entry points (argv[1]). Its handler must run as without andweorc, and
// andweorc must keep sampling (the program cannot take SIGPROF away).
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"

extern "C" sighandler_t sysv_signal(int, sighandler_t);

static volatile sig_atomic_t g_ticks = 0;
static volatile sig_atomic_t g_one_shot = 0;
static void on_prof(int) {
  g_ticks = g_ticks + 1;
  if (g_one_shot) sysv_signal(SIGPROF, on_prof);  // System V: re-arm
}
extern "C" sighandler_t bsd_signal(int, sighandler_t);

struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)(void);
  unsigned long mask;
};

int main(int argc, char** argv) {
  const char* how = argc > 1 ? argv[1] : "sigaction";
  if (strcmp(how, "sigaction") == 0) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, nullptr);
  } else if (strcmp(how, "signal") == 0) {
    signal(SIGPROF, on_prof);
  } else if (strcmp(how, "sigset") == 0) {
    sigset(SIGPROF, on_prof);
  } else if (strcmp(how, "sysv_signal") == 0) {
    // One-shot: the handler re-arms itself, as System V programs do.
    g_one_shot = 1;
    sysv_signal(SIGPROF, on_prof);
  } else if (strcmp(how, "bsd_signal") == 0) {
    bsd_signal(SIGPROF, on_prof);
  } else if (strcmp(how, "rt_sigaction") == 0) {
    // What a program with its own syscall layer (or a static libc) does.
    // Without SA_RESTORER the kernel has no return path: use glibc's
    // sigaction to learn it, then install through the raw call.
    struct sigaction probe;
    memset(&probe, 0, sizeof probe);
    probe.sa_handler = SIG_IGN;
    sigaction(SIGUSR2, &probe, nullptr);
    KernelSigaction kk{};
    syscall(SYS_rt_sigaction, SIGUSR2, nullptr, &kk, 8);
    KernelSigaction mine{on_prof, kk.flags | SA_RESTART, kk.restorer, 0};
    syscall(SYS_rt_sigaction, SIGPROF, &mine, nullptr, 8);
  } else if (strcmp(how, "block") == 0) {
    // Its own handler, then SIGPROF blocked with the old BSD call: the
    // program's ticks stop (they are pending), andweorc's samples do not.
    signal(SIGPROF, on_prof);
    sigblock(1 << (SIGPROF - 1));
  }
  // A one-shot (System V) handler is racy by nature: a second tick between
  // the kernel's reset and the handler's re-arm kills the program, with or
  // without andweorc. Under the profiler the process's CPU clock (which
  // ITIMER_PROF follows) also advances with the runtime's own threads, so on
  // a loaded machine that window is wider than natively; ticks every 10 ms
  // (~40 in the run) keep the race out of the test, which is about where
  // the ticks go, not about the race.
  long tick_us = g_one_shot ? 10000 : 2000;
  itimerval tv{{0, tick_us}, {0, tick_us}};
  setitimer(ITIMER_PROF, &tv, nullptr);
  unsigned long x = 0;
  for (int i = 0; i < 40; ++i) {
    x += burn_ms(10);
  }
  itimerval off{};
  setitimer(ITIMER_PROF, &off, nullptr);
  bool blocked = strcmp(how, "block") == 0;
  printf("%s: handler %s\n", how,
         blocked ? (g_ticks == 0 ? "held back" : "ran while blocked")
                 : (g_ticks > 20 ? "ran" : "did not run"));
  return int(x & 0);
}
