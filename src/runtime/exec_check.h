// exec_check.h: before an exec (or a spawn), tell whether the new image
// will run without the profiler, so that the profile says which process
// left the tree and why instead of silently missing its samples and points
// (issue 15: "processes that leave the tree are reported, not fatal").
//
// An image runs unprofiled when the dynamic loader will not preload the
// runtime into it: it has no loader (statically linked), the loader runs
// it in secure mode (set-user-ID or set-group-ID to another identity, which
// makes it ignore LD_PRELOAD), or the environment it gets has lost
// LD_PRELOAD or ANDWEORC_DATA_DIR (a program that cleared or rebuilt it).
//
// Everything here is async-signal-safe (programs exec from signal handlers
// and from vfork children): raw system calls, stack buffers, no allocation.
#ifndef ANDWEORC_RUNTIME_EXEC_CHECK_H_
#define ANDWEORC_RUNTIME_EXEC_CHECK_H_

#ifdef __cplusplus
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// Why the image at `path`, started with environment `envp`, would run
// without the profiler whose library file name is `preload_name` (a
// basename, e.g. "libandweorc.so"); nullptr when it will be profiled or
// when that cannot be told (the file is unreadable: exec will fail or say
// so itself). A `#!` script is judged by its interpreter.
ANDWEORC_SIGNAL_SAFE const char* exec_unprofiled_reason(
    const char* path, char* const* envp, const char* preload_name);

// The path execvp would run for `file` (`/` in it: itself; else the first
// executable in the caller's PATH), in out[cap]; false when none is found.
ANDWEORC_SIGNAL_SAFE bool exec_resolve_path(const char* file, char* out,
                                            size_t cap);

// Called before exec and posix_spawn under `andweorc run`: when the image
// will run unprofiled, writes a note into this process's raw file (it
// becomes a warning of the profile). `search_path`: resolve `file` like
// execvp. `envp`: the new image's environment (nullptr: an empty one, as
// the kernel reads it).
// `verb` names the call in the note ("execs", "spawns").
ANDWEORC_SIGNAL_SAFE void exec_check_note(const char* file, bool search_path,
                                          char* const* envp, const char* verb);

}  // namespace andweorc::runtime

extern "C" {
#endif

/* exec_check_note for the C wrappers (posix_spawn in interpose_io_more.c). */
void andweorc_exec_check_note(const char* file, int search_path,
                              char* const* envp, const char* verb);

#ifdef __cplusplus
}
#endif

#endif  // ANDWEORC_RUNTIME_EXEC_CHECK_H_
