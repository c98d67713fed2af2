// signal_handlers.h: the profiler's signal handler, the flush-on-death
// handlers, and the program's view of the signals we manage.
//
// The program must never be able to disable sampling (it could block or
// replace SIGPROF), and must see exactly the dispositions it set itself.
#ifndef ANDWEORC_RUNTIME_SIGNAL_HANDLERS_H_
#define ANDWEORC_RUNTIME_SIGNAL_HANDLERS_H_

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// Room our handler wants below its frame on an alternate stack.
constexpr size_t kHandlerStackRoom = 16 * 1024;

// True when `sp` (the handler's frame) lies on the alternate stack `ss` with
// less than kHandlerStackRoom below it. `ss` is the context's uc_stack: the
// kernel saves there the thread's alternate stack as set (its ss_flags carry
// no SS_ONSTACK, unlike sigaltstack()'s answer), so "on it" is decided from
// the address, as the kernel decides it. A disarmed (SS_AUTODISARM, size 0)
// or disabled stack is never "on".
ANDWEORC_SIGNAL_SAFE inline bool on_small_altstack_at(const stack_t& ss,
                                                      uintptr_t sp) {
  if ((ss.ss_flags & SS_DISABLE) || ss.ss_size == 0) return false;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(ss.ss_sp);
  if (sp - lo >= ss.ss_size) return false;  // not on it (sp < lo wraps)
  return sp - lo < kHandlerStackRoom;
}

// Installs the sampling handler for kProfilerSignal.
bool install_profiler_handler();
// For each signal whose default action kills the process and whose current
// disposition is SIG_DFL, installs a handler that writes the collected data
// and then dies of the same signal.
void install_flush_handlers();

// The interposed sigaction() calls this first. Returns true when `sig` is one
// we manage and the call was answered (result in *rc, errno set on error).
bool managed_sigaction(int sig, const struct sigaction* act,
                       struct sigaction* old, int* rc);

// After the program changed its mask (sigprocmask & co.): remembers whether
// it blocks the profiler signal in this thread, and delivers a program
// SIGPROF held back meanwhile once it unblocks it.
void program_mask_changed(int how, const sigset_t* set);
// Puts the profiler signal back into a mask returned to the program when
// the program believes it blocked.
void program_view_of_mask(sigset_t* old);

// Removes the profiler signal from a mask the program is about to install.
// Returns `set` itself when unchanged, else `scratch`.
const sigset_t* without_profiler_signal(int how, const sigset_t* set,
                                        sigset_t* scratch);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SIGNAL_HANDLERS_H_
