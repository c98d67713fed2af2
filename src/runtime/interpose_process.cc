// interpose_process.cc: exec, _exit and daemon, so that the data collected
// by a process image is written before the image goes away, and dlclose, so
// that the maps a library's samples need are written before it goes away.
// (fork is handled by pthread_atfork in runtime.cc; exit() by the library
// destructor.)
//
// exec and _exit are async-signal-safe and programs call them from signal
// handlers: what they do here is too (runtime_shutdown_now, bounded locks).
// A vfork child shares the parent's memory and must not touch the parent's
// files: is_original_process() is false there and the hooks do nothing.
#include <errno.h>
#include <fcntl.h>
#include <paths.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "runtime/exec_check.h"
#include "runtime/internal_fds.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/shared_tree.h"

using andweorc::runtime::real;
using andweorc::runtime::runtime_before_exec;
using andweorc::runtime::runtime_shutdown_now;

extern char** environ;

namespace {

// Before any exec. In a vfork child (our memory, its own descriptor table)
// the new image keeps descriptors we cannot tell apart from here: every
// pipe of the parent may now lead to another process, so the parent's marks
// (shared memory) are cleared, as fork clears them.
void before_exec(const char* file, bool search_path, char* const* envp) {
  // An image the loader will not preload us into leaves the profile: say so.
  andweorc::runtime::exec_check_note(file, search_path, envp, "execs");
  if (!andweorc::runtime::is_original_process()) andweorc_fd_clear_marks();
  // This image leaves the process tree: pipes to it lead outside now.
  andweorc::runtime::tree_note_exec();
  runtime_before_exec();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path,
                                                  char* const argv[],
                                                  char* const envp[]) {
  before_exec(path, false, envp);
  return real().execve(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char* path,
                                                 char* const argv[]) {
  before_exec(path, false, environ);
  return real().execv(path, argv);
}

__attribute__((visibility("default"))) int execvp(const char* file,
                                                  char* const argv[]) {
  before_exec(file, true, environ);
  return real().execvp(file, argv);
}

__attribute__((visibility("default"))) int execvpe(const char* file,
                                                   char* const argv[],
                                                   char* const envp[]) {
  before_exec(file, true, envp);
  return real().execvpe(file, argv, envp);
}

// Collects the variadic arguments of execl* into argv: counted first, then
// copied into an array of exactly that size on the stack (a fixed 4096-entry
// array would put 32 KiB on a possibly small signal or thread stack).
#define ANDWEORC_EXECL(first, call, get_envp)                           \
  va_list ap;                                                           \
  va_start(ap, first);                                                  \
  size_t argc = 1;                                                      \
  while (va_arg(ap, const char*) != nullptr) ++argc;                    \
  va_end(ap);                                                           \
  const char* argv[argc + 1];                                           \
  argv[0] = first;                                                      \
  va_start(ap, first);                                                  \
  for (size_t i = 1; i <= argc; ++i) argv[i] = va_arg(ap, const char*); \
  char* const* envp = nullptr;                                          \
  get_envp;                                                             \
  va_end(ap);                                                           \
  (void)envp;                                                           \
  return call

__attribute__((visibility("default"))) int execl(const char* path,
                                                 const char* arg, ...) {
  ANDWEORC_EXECL(arg, execv(path, const_cast<char* const*>(argv)), (void)0);
}

__attribute__((visibility("default"))) int execlp(const char* file,
                                                  const char* arg, ...) {
  ANDWEORC_EXECL(arg, execvp(file, const_cast<char* const*>(argv)), (void)0);
}

__attribute__((visibility("default"))) int execle(const char* path,
                                                  const char* arg, ...) {
  ANDWEORC_EXECL(arg, execve(path, const_cast<char* const*>(argv), envp),
                 envp = va_arg(ap, char* const*));
}

__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  runtime_shutdown_now();
  real()._exit(status);
  __builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  runtime_shutdown_now();
  real()._Exit(status);
  __builtin_unreachable();
}

// A maps snapshot before the library may be unmapped: samples taken in it
// are then read with a snapshot that has it, not one in which another
// library took its place (issue 12 item 9). Not async-signal-safe, like
// dlclose itself.
__attribute__((visibility("default"))) int dlclose(void* handle) {
  andweorc::runtime::runtime_before_dlclose();
  return real().dlclose(handle);
}

// glibc's daemon() ends the parent with its internal _exit, which skips
// ours: the parent's raw file would have no end record. The same steps as
// glibc 2.36's daemon(), through the interposed fork and _exit.
__attribute__((visibility("default"))) int daemon(int nochdir, int noclose) {
  switch (fork()) {
    case -1:
      return -1;
    case 0:
      break;
    default:
      _exit(0);
  }
  if (setsid() == -1) return -1;
  if (!nochdir) (void)chdir("/");
  if (!noclose) {
    int fd = open(_PATH_DEVNULL, O_RDWR, 0);
    struct stat st;
    if (fd == -1) return -1;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) ||
        st.st_rdev != makedev(1, 3)) {
      close(fd);
      errno = ENODEV;
      return -1;
    }
    (void)dup2(fd, STDIN_FILENO);
    (void)dup2(fd, STDOUT_FILENO);
    (void)dup2(fd, STDERR_FILENO);
    if (fd > 2) (void)close(fd);
  }
  return 0;
}

}  // extern "C"
