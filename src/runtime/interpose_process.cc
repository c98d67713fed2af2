// interpose_process.cc: exec and _exit, so that the data collected by a
// process image is written before the image goes away. (fork is handled by
// pthread_atfork in runtime.cc; exit() by the library destructor.)
//
// A vfork child shares the parent's memory and must not touch the parent's
// files: is_original_process() is false there and the hooks do nothing.
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

#include "runtime/real_functions.h"
#include "runtime/runtime.h"

using andweorc::runtime::real;
using andweorc::runtime::runtime_before_exec;
using andweorc::runtime::runtime_shutdown;

extern char** environ;

namespace {

// Collects the variadic arguments of execl* into argv (bounded, on stack).
constexpr int kMaxArgs = 4096;

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path,
                                                  char* const argv[],
                                                  char* const envp[]) {
  runtime_before_exec();
  return real().execve(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char* path,
                                                 char* const argv[]) {
  runtime_before_exec();
  return real().execv(path, argv);
}

__attribute__((visibility("default"))) int execvp(const char* file,
                                                  char* const argv[]) {
  runtime_before_exec();
  return real().execvp(file, argv);
}

__attribute__((visibility("default"))) int execvpe(const char* file,
                                                   char* const argv[],
                                                   char* const envp[]) {
  runtime_before_exec();
  return real().execvpe(file, argv, envp);
}

#define ANDWEORC_COLLECT_ARGS(first, ap, argv, extra)         \
  const char* argv[kMaxArgs];                                 \
  int argc = 0;                                               \
  argv[argc++] = first;                                       \
  va_start(ap, first);                                        \
  while (argc < kMaxArgs &&                                   \
         (argv[argc++] = va_arg(ap, const char*)) != nullptr) \
    ;                                                         \
  extra;                                                      \
  va_end(ap);                                                 \
  if (argc == kMaxArgs) {                                     \
    errno = E2BIG;                                            \
    return -1;                                                \
  }

__attribute__((visibility("default"))) int execl(const char* path,
                                                 const char* arg, ...) {
  va_list ap;
  ANDWEORC_COLLECT_ARGS(arg, ap, argv, (void)0);
  return execv(path, const_cast<char* const*>(argv));
}

__attribute__((visibility("default"))) int execlp(const char* file,
                                                  const char* arg, ...) {
  va_list ap;
  ANDWEORC_COLLECT_ARGS(arg, ap, argv, (void)0);
  return execvp(file, const_cast<char* const*>(argv));
}

__attribute__((visibility("default"))) int execle(const char* path,
                                                  const char* arg, ...) {
  va_list ap;
  char* const* envp = nullptr;
  ANDWEORC_COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char* const*));
  return execve(path, const_cast<char* const*>(argv), envp);
}

__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  runtime_shutdown();
  real()._exit(status);
  __builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  runtime_shutdown();
  real()._Exit(status);
  __builtin_unreachable();
}

}  // extern "C"
