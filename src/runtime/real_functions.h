// real_functions.h: pointers to the libc functions that andweorc interposes.
//
// Resolved eagerly by resolve_real_functions() (from the constructor, or
// lazily on the first interposed call if another library's constructor calls
// us first). dlsym may allocate, so resolution never happens in a handler;
// handlers only call pointers that were resolved before handlers existed.
#ifndef ANDWEORC_RUNTIME_REAL_FUNCTIONS_H_
#define ANDWEORC_RUNTIME_REAL_FUNCTIONS_H_

#include <pthread.h>
#include <signal.h>

namespace andweorc::runtime {

struct RealFunctions {
  int (*pthread_create)(pthread_t*, const pthread_attr_t*, void* (*)(void*),
                        void*);
  int (*sigaction)(int, const struct sigaction*, struct sigaction*);
  sighandler_t (*signal)(int, sighandler_t);
  int (*sigprocmask)(int, const sigset_t*, sigset_t*);
  int (*pthread_sigmask)(int, const sigset_t*, sigset_t*);
  int (*execve)(const char*, char* const[], char* const[]);
  int (*execv)(const char*, char* const[]);
  int (*execvp)(const char*, char* const[]);
  int (*execvpe)(const char*, char* const[], char* const[]);
  void (*_exit)(int);  // never returns
  void (*_Exit)(int);  // never returns
};

// The resolved table; resolve_real_functions() must have run.
const RealFunctions& real();
// Idempotent; not signal-safe.
void resolve_real_functions();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_REAL_FUNCTIONS_H_
