// interpose_signals.cc: the program's signal calls, filtered so that it can
// neither replace nor block the profiler's signal, and still sees the
// dispositions it set (signal_handlers.h). Every libc entry point that
// changes a disposition or a mask is covered, including the old System V /
// BSD ones and raw syscall(SYS_rt_sigaction / SYS_rt_sigprocmask): glibc
// implements them with internal calls that would bypass sigaction().
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "runtime/real_functions.h"
#include "runtime/signal_handlers.h"

using andweorc::runtime::managed_sigaction;
using andweorc::runtime::program_mask_changed;
using andweorc::runtime::program_view_of_mask;
using andweorc::runtime::real;
using andweorc::runtime::without_profiler_signal;

namespace {

// The kernel's struct sigaction for rt_sigaction on x86-64.
struct KernelSigaction {
  void* handler;
  unsigned long flags;
  void* restorer;
  uint64_t mask;
};
constexpr unsigned long kSaRestorer = 0x04000000;

sighandler_t install(int sig, sighandler_t handler, int flags, bool mask_self) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = flags;
  sigemptyset(&act.sa_mask);
  if (mask_self) sigaddset(&act.sa_mask, sig);
  if (sigaction(sig, &act, &old) != 0) return SIG_ERR;
  return old.sa_handler;
}

sigset_t from_old_mask(int mask) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig = 1; sig < 32; ++sig)
    if (mask & (1 << (sig - 1))) sigaddset(&set, sig);
  return set;
}

int to_old_mask(const sigset_t& set) {
  int mask = 0;
  for (int sig = 1; sig < 32; ++sig)
    if (sigismember(&set, sig) == 1) mask |= 1 << (sig - 1);
  return mask;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int sigaction(
    int sig, const struct sigaction* act, struct sigaction* old) {
  int rc = 0;
  if (managed_sigaction(sig, act, old, &rc)) return rc;
  return real().sigaction(sig, act, old);
}

// BSD semantics, as glibc's signal(): restart syscalls, no reset.
__attribute__((visibility("default"))) sighandler_t signal(
    int sig, sighandler_t handler) {
  return install(sig, handler, SA_RESTART, true);
}
__attribute__((visibility("default"))) sighandler_t bsd_signal(
    int sig, sighandler_t handler) {
  return install(sig, handler, SA_RESTART, true);
}
// System V semantics: one shot, not masked while it runs.
__attribute__((visibility("default"))) sighandler_t sysv_signal(
    int sig, sighandler_t handler) {
  return install(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

__attribute__((visibility("default"))) int sigprocmask(int how,
                                                       const sigset_t* set,
                                                       sigset_t* old) {
  sigset_t scratch, before;
  int rc = real().sigprocmask(how, without_profiler_signal(how, set, &scratch),
                              old ? old : &before);
  if (rc == 0) {
    program_view_of_mask(old);
    program_mask_changed(how, set);
  }
  return rc;
}

__attribute__((visibility("default"))) int pthread_sigmask(int how,
                                                           const sigset_t* set,
                                                           sigset_t* old) {
  sigset_t scratch, before;
  int rc = real().pthread_sigmask(
      how, without_profiler_signal(how, set, &scratch), old ? old : &before);
  if (rc == 0) {
    program_view_of_mask(old);
    program_mask_changed(how, set);
  }
  return rc;
}

// The initial mask of a thread the program creates.
__attribute__((visibility("default"))) int pthread_attr_setsigmask_np(
    pthread_attr_t* attr, const sigset_t* set) {
  sigset_t scratch;
  return real().pthread_attr_setsigmask_np(
      attr, without_profiler_signal(SIG_SETMASK, set, &scratch));
}

__attribute__((visibility("default"))) int sigblock(int mask) {
  sigset_t set = from_old_mask(mask), old;
  if (sigprocmask(SIG_BLOCK, &set, &old) != 0) return -1;
  return to_old_mask(old);
}

__attribute__((visibility("default"))) int sigsetmask(int mask) {
  sigset_t set = from_old_mask(mask), old;
  if (sigprocmask(SIG_SETMASK, &set, &old) != 0) return -1;
  return to_old_mask(old);
}

__attribute__((visibility("default"))) int sighold(int sig) {
  sigset_t set;
  sigemptyset(&set);
  if (sigaddset(&set, sig) != 0) return -1;
  return sigprocmask(SIG_BLOCK, &set, nullptr);
}

__attribute__((visibility("default"))) int sigignore(int sig) {
  return install(sig, SIG_IGN, 0, false) == SIG_ERR ? -1 : 0;
}

// System V sigset(): SIG_HOLD blocks; any other disposition installs it and
// unblocks. Returns SIG_HOLD if the signal was blocked before.
__attribute__((visibility("default"))) sighandler_t sigset(int sig,
                                                           sighandler_t disp) {
  sigset_t one, old;
  sigemptyset(&one);
  if (sigaddset(&one, sig) != 0) return SIG_ERR;
  struct sigaction prev;
  if (disp == SIG_HOLD) {
    if (sigaction(sig, nullptr, &prev) != 0) return SIG_ERR;
    if (sigprocmask(SIG_BLOCK, &one, &old) != 0) return SIG_ERR;
  } else {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_handler = disp;
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &prev) != 0) return SIG_ERR;
    if (sigprocmask(SIG_UNBLOCK, &one, &old) != 0) return SIG_ERR;
  }
  return sigismember(&old, sig) == 1 ? SIG_HOLD : prev.sa_handler;
}

// syscall(SYS_rt_sigaction / SYS_rt_sigprocmask), from interpose_io.c.
// Returns 1 when the call was answered here (*rc = syscall()'s result).
int andweorc_guard_signal_syscall(long number, long a1, long a2, long a3,
                                  long a4, long* rc) {
  if (number == SYS_rt_sigaction) {
    int sig = int(a1);
    const auto* kact = reinterpret_cast<const KernelSigaction*>(a2);
    auto* kold = reinterpret_cast<KernelSigaction*>(a3);
    if (a4 != sizeof(uint64_t)) return 0;  // the kernel answers EINVAL
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    memset(&old, 0, sizeof old);
    if (kact != nullptr) {
      act.sa_handler = reinterpret_cast<sighandler_t>(kact->handler);
      act.sa_flags = int(kact->flags & ~kSaRestorer);
      memcpy(&act.sa_mask, &kact->mask, sizeof kact->mask);
    }
    int result = 0;
    if (!managed_sigaction(sig, kact ? &act : nullptr, &old, &result))
      return 0;  // not a signal we manage: the kernel's answer is right
    if (result == 0 && kold != nullptr) {
      kold->handler = reinterpret_cast<void*>(old.sa_handler);
      kold->flags = unsigned(old.sa_flags) & ~kSaRestorer;
      kold->restorer = nullptr;
      memcpy(&kold->mask, &old.sa_mask, sizeof kold->mask);
    }
    *rc = result;
    return 1;
  }
  if (number == SYS_rt_sigprocmask && a2 != 0 && a4 == sizeof(uint64_t)) {
    sigset_t set, scratch;
    sigemptyset(&set);
    memcpy(&set, reinterpret_cast<const void*>(a2), sizeof(uint64_t));
    const sigset_t* use = without_profiler_signal(int(a1), &set, &scratch);
    *rc = real().syscall(number, a1, long(use), a3, a4, 0, 0);
    if (*rc == 0) {
      program_view_of_mask(reinterpret_cast<sigset_t*>(a3));
      program_mask_changed(int(a1), &set);
    }
    return 1;
  }
  return 0;
}

}  // extern "C"
