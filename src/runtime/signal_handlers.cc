// signal_handlers.cc: sampling and flush-on-death handlers; see the header.
#include "runtime/signal_handlers.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/code_patch.h"
#include "runtime/perf_sampler.h"
#include "runtime/raw_format.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/sample_hook.h"
#include "runtime/sample_period.h"
#include "runtime/thread_state.h"
#include "runtime/timer_sampler.h"

namespace andweorc::runtime {
namespace {

// Signals whose default action terminates the process (signal(7)).
constexpr int kDeadlySignals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGILL,  SIGTRAP,
                                  SIGABRT, SIGBUS,  SIGFPE,  SIGUSR1, SIGSEGV,
                                  SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGXCPU,
                                  SIGXFSZ, SIGSYS};

// What the program believes each signal's disposition is, for the signals
// where ours differs: the profiler signal (program's handler is never
// installed) and deadly signals where we put a flush handler in SIG_DFL's
// place. Written by sigaction() calls (not from handlers).
struct AppView {
  bool managed = false;  // our handler is installed instead of SIG_DFL
  struct sigaction action {};
};
AppView g_view[NSIG];

// The program's own mask for the profiler signal, per thread: the kernel
// mask never blocks it (we need it), so a program SIGPROF that arrives
// while the program believes it blocked is held here and delivered when
// the program unblocks it, as the kernel would.
ANDWEORC_TLS bool t_app_blocked = false;
ANDWEORC_TLS bool t_app_pending = false;

// Whose SIGPROF is this? Ours come from the thread's perf event (F_SETSIG:
// a POLL_* band code) or its POSIX timer (SI_TIMER with its id). Anything
// else (setitimer(ITIMER_PROF) is SI_KERNEL, kill/tgkill/sigqueue) is the
// program's. A SI_TIMER of another timer is ours when stale (a thread's
// deleted timer), unless the program has a handler to give it to.
enum class Origin { kSample, kStale, kProgram };
ANDWEORC_SIGNAL_SAFE Origin origin_of(const siginfo_t* info, ThreadState* s) {
  if (info == nullptr) return Origin::kProgram;
  if (info->si_code >= POLL_IN && info->si_code <= POLL_HUP)
    return s != nullptr ? Origin::kSample : Origin::kStale;
  if (info->si_code == SI_TIMER) {
    if (s != nullptr && __atomic_load_n(&s->has_timer, __ATOMIC_ACQUIRE) &&
        info->si_timerid == int(reinterpret_cast<intptr_t>(s->timer)))
      return Origin::kSample;
    const struct sigaction& a = g_view[kProfilerSignal].action;
    bool has_handler = (a.sa_flags & SA_SIGINFO)
                           ? a.sa_sigaction != nullptr
                           : a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN;
    return has_handler ? Origin::kProgram : Origin::kStale;
  }
  return Origin::kProgram;
}

// Gives a SIGPROF of the program's own to the disposition it set: its
// handler (with its sa_mask), nothing (SIG_IGN), or death (SIG_DFL, whose
// action for SIGPROF is to terminate).
ANDWEORC_SIGNAL_SAFE void deliver_to_program(int sig, siginfo_t* info,
                                             void* context) {
  if (t_app_blocked) {
    t_app_pending = true;
    return;
  }
  struct sigaction act = g_view[sig].action;
  if (act.sa_flags & SA_RESETHAND) {
    g_view[sig].action.sa_handler = SIG_DFL;
    g_view[sig].action.sa_flags &= ~SA_SIGINFO;
  }
  bool info_handler = (act.sa_flags & SA_SIGINFO) != 0;
  if (!info_handler && act.sa_handler == SIG_IGN) return;
  if (!info_handler && act.sa_handler == SIG_DFL) {
    runtime_emergency_flush();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    real().sigaction(sig, &dfl, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    syscall(SYS_tgkill, getpid(), current_tid(), sig);
    return;
  }
  sigset_t mask = act.sa_mask, old;
  if (act.sa_flags & SA_NODEFER) sigdelset(&mask, sig);
  real().pthread_sigmask(SIG_BLOCK, &mask, &old);
  if (info_handler)
    act.sa_sigaction(sig, info, context);
  else
    act.sa_handler(sig);
  real().pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

// True when this signal interrupted a handler running on a small alternate
// stack (sigaltstack): the program sized it for its own handler, not for
// ours on top. Our work needs a few KiB (a perf record copy, a call chain,
// the delay engine); without the room, this signal's samples stay in the
// perf ring for the next one and its delay is paid later.
// The context's uc_stack describes the alternate stack (signal_handlers.h):
// what a sigaltstack() query would say, without a syscall per sample. Our
// handler has no SA_ONSTACK, so its frame is on whatever stack the
// interrupted code used.
ANDWEORC_SIGNAL_SAFE bool on_small_altstack(const void* context) {
  if (context == nullptr) return false;
  return on_small_altstack_at(
      static_cast<const ucontext_t*>(context)->uc_stack,
      reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
}

ANDWEORC_SIGNAL_SAFE void on_profiler_signal(int sig, siginfo_t* info,
                                             void* context) {
  if (on_small_altstack(context)) return;
  int saved_errno = errno;
  ThreadState* s = current_thread();
  // A thread that ran before the profiler started takes the slot prepared
  // for it (thread_state.h) in its first sample.
  if (s == nullptr) s = adopt_prepared_thread();
  Origin origin = origin_of(info, s);
  if (origin == Origin::kProgram) {
    errno = saved_errno;
    deliver_to_program(sig, info, context);
    saved_errno = errno;
  } else if (origin == Origin::kSample && runtime_active()) {
    if (!s->has_timer) {
      perf_drain(s);
      perf_watch_switches(s);
    } else {
      // A thread that left perf (perf_watch_switches) may still receive a
      // signal its event queued before it was disabled: drain, and take a
      // timer sample only for the timer's own signals.
      if (s->perf_page != nullptr) perf_drain(s);
      if (info->si_code == SI_TIMER)
        timer_sample(s, static_cast<const ucontext_t*>(context));
    }
    sample_period_follow(s);  // the live page's period, from the next sample
    after_samples(s);  // may sleep: this is where other threads are delayed
  }
  errno = saved_errno;
}

ANDWEORC_SIGNAL_SAFE void on_deadly_signal(int sig, siginfo_t*, void* uc) {
  if (sig == SIGTRAP && code_patch_on_trap(uc)) return;  // a probe's int3
  int saved_errno = errno;
  runtime_emergency_flush();
  // Die the way the program would have: default action, then re-raise. For
  // a fault (SIGSEGV...) returning re-executes the faulting instruction.
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  real().sigaction(sig, &dfl, nullptr);
  syscall(SYS_tgkill, getpid(), current_tid(), sig);
  errno = saved_errno;
}

bool is_deadly(int sig) {
  for (int d : kDeadlySignals)
    if (d == sig) return true;
  return false;
}

void install_flush_handler(int sig) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_deadly_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (real().sigaction(sig, &sa, nullptr) == 0) g_view[sig].managed = true;
}

}  // namespace

bool install_profiler_handler() {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_profiler_signal;
  // SA_RESTART: a sample must not make the program's syscalls fail with EINTR.
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  struct sigaction old;
  if (real().sigaction(kProfilerSignal, &sa, &old) != 0) return false;
  g_view[kProfilerSignal].action = old;
  // Make sure no inherited mask blocks it in this thread.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, kProfilerSignal);
  real().pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  return true;
}

void install_flush_handlers() {
  for (int sig : kDeadlySignals) {
    struct sigaction cur;
    if (real().sigaction(sig, nullptr, &cur) != 0) continue;
    // Respect SIG_IGN (nohup, background jobs) and handlers set before us.
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL) {
      g_view[sig].action = cur;
      install_flush_handler(sig);
    }
  }
}

// Signals whose handler we installed with the profiler's signal added to
// its mask (see managed_sigaction); the program's view does not show it.
bool g_prof_masked[NSIG];

bool managed_sigaction(int sig, const struct sigaction* act,
                       struct sigaction* old, int* rc) {
  if (sig <= 0 || sig >= NSIG) return false;
  // A vfork child shares our memory but not our dispositions: what it
  // changes is its own (until it execs), never the parent's view.
  if (!is_original_process()) return false;
  // A program handler that runs on an alternate stack (SA_ONSTACK) runs
  // with the profiler's signal blocked: the program sized that stack for
  // its own handler, and a sample's signal frame nested on it (the kernel
  // writes 1-3 KiB of register state before our handler can step aside)
  // overflows a small one. The sample waits until the handler returns.
  struct sigaction shielded;
  const bool shield = sig != kProfilerSignal && act != nullptr &&
                      (act->sa_flags & SA_ONSTACK) &&
                      sigismember(&act->sa_mask, kProfilerSignal) == 0;
  const bool was_shielded = g_prof_masked[sig];
  if (shield) {
    shielded = *act;
    sigaddset(&shielded.sa_mask, kProfilerSignal);
  }
  const struct sigaction* to_kernel = shield ? &shielded : act;
  if (!is_deadly(sig) && sig != kProfilerSignal) {
    if (!shield && !was_shielded) return false;
    *rc = real().sigaction(sig, to_kernel, old);
    if (*rc == 0) {
      if (old && was_shielded) sigdelset(&old->sa_mask, kProfilerSignal);
      if (act) g_prof_masked[sig] = shield;
    }
    return true;
  }
  if (sig == kProfilerSignal && runtime_active()) {
    // The program may not take the profiler's signal; it sees its own view.
    if (old) *old = g_view[sig].action;
    if (act) g_view[sig].action = *act;
    *rc = 0;
    return true;
  }
  if (!is_deadly(sig) || !runtime_active()) return false;
  struct sigaction previous = g_view[sig].action;
  bool was_managed = g_view[sig].managed;
  // When our handler is not installed, the kernel's disposition is the
  // program's own: read it before changing anything.
  if (!was_managed && real().sigaction(sig, nullptr, &previous) != 0) {
    *rc = -1;
    return true;
  }
  if (!was_managed && was_shielded)
    sigdelset(&previous.sa_mask, kProfilerSignal);
  if (act != nullptr) {
    bool wants_default =
        !(act->sa_flags & SA_SIGINFO) && act->sa_handler == SIG_DFL;
    if (wants_default) {
      if (!was_managed) install_flush_handler(sig);
      g_prof_masked[sig] = false;
    } else {
      if (real().sigaction(sig, to_kernel, nullptr) != 0) {
        *rc = -1;
        return true;
      }
      g_view[sig].managed = false;
      g_prof_masked[sig] = shield;
    }
    g_view[sig].action = *act;
  }
  if (old) *old = previous;
  *rc = 0;
  return true;
}

void program_mask_changed(int how, const sigset_t* set) {
  if (set == nullptr || !runtime_active()) return;
  bool member = sigismember(set, kProfilerSignal) == 1;
  if (how == SIG_BLOCK && member) t_app_blocked = true;
  if (how == SIG_UNBLOCK && member) t_app_blocked = false;
  if (how == SIG_SETMASK) t_app_blocked = member;
  if (!t_app_blocked && t_app_pending) {
    t_app_pending = false;
    syscall(SYS_tgkill, getpid(), current_tid(), kProfilerSignal);
  }
}

void program_view_of_mask(sigset_t* old) {
  if (old == nullptr || !runtime_active()) return;
  if (t_app_blocked) sigaddset(old, kProfilerSignal);
}

const sigset_t* without_profiler_signal(int how, const sigset_t* set,
                                        sigset_t* scratch) {
  if (set == nullptr || how == SIG_UNBLOCK || !runtime_active()) return set;
  if (!sigismember(set, kProfilerSignal)) return set;
  *scratch = *set;
  sigdelset(scratch, kProfilerSignal);
  return scratch;
}

}  // namespace andweorc::runtime
