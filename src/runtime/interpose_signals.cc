// interpose_signals.cc: the program's signal calls, filtered so that it can
// neither replace nor block the profiler's signal, and still sees the
// dispositions it set (signal_handlers.h).
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "runtime/real_functions.h"
#include "runtime/signal_handlers.h"

using andweorc::runtime::managed_sigaction;
using andweorc::runtime::real;
using andweorc::runtime::without_profiler_signal;

extern "C" {

__attribute__((visibility("default"))) int sigaction(
    int sig, const struct sigaction* act, struct sigaction* old) {
  int rc = 0;
  if (managed_sigaction(sig, act, old, &rc)) return rc;
  return real().sigaction(sig, act, old);
}

__attribute__((visibility("default"))) sighandler_t signal(
    int sig, sighandler_t handler) {
  // BSD semantics, as glibc's signal(): restart syscalls, no reset.
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, sig);
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

__attribute__((visibility("default"))) int sigprocmask(int how,
                                                       const sigset_t* set,
                                                       sigset_t* old) {
  sigset_t scratch;
  return real().sigprocmask(how, without_profiler_signal(how, set, &scratch),
                            old);
}

__attribute__((visibility("default"))) int pthread_sigmask(int how,
                                                           const sigset_t* set,
                                                           sigset_t* old) {
  sigset_t scratch;
  return real().pthread_sigmask(
      how, without_profiler_signal(how, set, &scratch), old);
}

}  // extern "C"
