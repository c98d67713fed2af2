// exec_check.cc: see exec_check.h. Signal-safe: raw system calls into
// stack buffers; the ELF header and program headers are read with pread.
#include "runtime/exec_check.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/raw_writer.h"
#include "runtime/runtime.h"

extern char** environ;

namespace andweorc::runtime {
namespace {

constexpr size_t kPathMax = 4096;

// The value of NAME in envp ("NAME=value"), or nullptr.
ANDWEORC_SIGNAL_SAFE const char* env_value(char* const* envp,
                                           const char* name) {
  size_t n = strlen(name);
  for (; envp != nullptr && *envp != nullptr; ++envp)
    if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=') return *envp + n + 1;
  return nullptr;
}

// True when the colon- or space-separated list holds an entry whose file
// name is `name` (LD_PRELOAD's syntax).
ANDWEORC_SIGNAL_SAFE bool list_has_file(const char* list, const char* name) {
  size_t n = strlen(name);
  const char* p = list;
  while (*p != '\0') {
    const char* end = p;
    while (*end != '\0' && *end != ':' && *end != ' ') ++end;
    const char* base = p;
    for (const char* q = p; q < end; ++q)
      if (*q == '/') base = q + 1;
    if (size_t(end - base) == n && strncmp(base, name, n) == 0) return true;
    p = *end == '\0' ? end : end + 1;
  }
  return false;
}

ANDWEORC_SIGNAL_SAFE int open_read(const char* path) {
  return int(
      raw_syscall(SYS_openat, AT_FDCWD, long(path), O_RDONLY | O_CLOEXEC));
}

ANDWEORC_SIGNAL_SAFE long pread_all(int fd, void* buf, size_t n, long off) {
  return raw_syscall(SYS_pread64, fd, long(buf), long(n), off);
}

// The file's own verdict, without looking at a script's interpreter:
// nullptr (dynamic, or cannot tell), a reason, or "#!" with the interpreter
// copied into interp[cap].
ANDWEORC_SIGNAL_SAFE const char* image_reason(const char* path, char* interp,
                                              size_t cap) {
  int fd = open_read(path);
  if (fd < 0) return nullptr;  // exec will fail, or say so itself
  const char* reason = nullptr;
  struct stat st;
  unsigned char head[256];
  long got = 0;
  if (raw_syscall(SYS_fstat, fd, long(&st)) == 0) {
    // The loader's secure mode (AT_SECURE) ignores LD_PRELOAD entries with
    // a slash and libraries outside the trusted directories: ours is both.
    if (((st.st_mode & S_ISUID) != 0 &&
         st.st_uid != uid_t(raw_syscall(SYS_geteuid))) ||
        ((st.st_mode & S_ISGID) != 0 &&
         st.st_gid != gid_t(raw_syscall(SYS_getegid))))
      reason =
          "it is set-user-ID or set-group-ID, so the loader ignores "
          "LD_PRELOAD";
  }
  if (reason == nullptr) got = pread_all(fd, head, sizeof head, 0);
  if (reason == nullptr && got >= 2 && head[0] == '#' && head[1] == '!') {
    // "#! /path/interp arg": the kernel runs the interpreter.
    long i = 2;
    while (i < got && (head[i] == ' ' || head[i] == '\t')) ++i;
    size_t n = 0;
    while (i < got && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' &&
           n + 1 < cap)
      interp[n++] = char(head[i++]);
    interp[n] = '\0';
    if (n > 0) reason = "#!";
  } else if (reason == nullptr && got >= EI_NIDENT &&
             memcmp(head, ELFMAG, SELFMAG) == 0 &&
             head[EI_CLASS] != ELFCLASS64) {
    reason =
        "it is a 32-bit program, which the 64-bit runtime cannot be "
        "preloaded into";
  } else if (reason == nullptr && got >= long(sizeof(Elf64_Ehdr)) &&
             memcmp(head, ELFMAG, SELFMAG) == 0) {
    Elf64_Ehdr eh;
    memcpy(&eh, head, sizeof eh);
    bool has_interp = false, has_dynamic = false;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
      Elf64_Phdr ph;
      if (pread_all(fd, &ph, sizeof ph,
                    long(eh.e_phoff + i * eh.e_phentsize)) != long(sizeof ph))
        break;
      has_interp |= ph.p_type == PT_INTERP;
      has_dynamic |= ph.p_type == PT_DYNAMIC;
    }
    // The dynamic loader run as a program (ld.so PROG) has no PT_INTERP but
    // loads PROG with LD_PRELOAD: it is position-independent with a
    // dynamic section, as a static-pie is too, so tell them by name.
    const char* base = path;
    for (const char* q = path; *q != '\0'; ++q)
      if (*q == '/') base = q + 1;
    bool is_loader =
        strncmp(base, "ld-", 3) == 0 || strncmp(base, "ld.so", 5) == 0;
    if (!has_interp && !(is_loader && has_dynamic && eh.e_type == ET_DYN))
      reason = "it is statically linked, so LD_PRELOAD cannot reach it";
  }
  raw_syscall(SYS_close, fd);
  return reason;
}

}  // namespace

ANDWEORC_SIGNAL_SAFE bool exec_resolve_path(const char* file, char* out,
                                            size_t cap) {
  if (file == nullptr || *file == '\0' || cap == 0) return false;
  if (strchr(file, '/') != nullptr) {
    out[0] = '\0';
    append_str(out, cap, 0, file);
    return true;
  }
  // execvp and execvpe search the caller's PATH, whatever environment the
  // new image gets (glibc: "/bin:/usr/bin" when unset).
  const char* path = env_value(environ, "PATH");
  if (path == nullptr) path = "/bin:/usr/bin";
  const char* p = path;
  for (;;) {
    const char* end = p;
    while (*end != '\0' && *end != ':') ++end;
    size_t len = 0;
    out[0] = '\0';
    if (end == p) {
      len = append_str(out, cap, len, ".");  // an empty entry: the cwd
    } else {
      size_t n = size_t(end - p);
      if (n + 1 < cap) {
        memcpy(out, p, n);
        out[n] = '\0';
        len = n;
      }
    }
    len = append_str(out, cap, len, "/");
    len = append_str(out, cap, len, file);
    if (raw_syscall(SYS_faccessat, AT_FDCWD, long(out), X_OK) == 0) return true;
    if (*end == '\0') return false;
    p = end + 1;
  }
}

ANDWEORC_SIGNAL_SAFE const char* exec_unprofiled_reason(
    const char* path, char* const* envp, const char* preload_name) {
  char interp[256];
  const char* reason = image_reason(path, interp, sizeof interp);
  if (reason != nullptr && strcmp(reason, "#!") == 0) {
    char inner[256];
    reason = image_reason(interp, inner, sizeof inner);
    if (reason != nullptr && strcmp(reason, "#!") == 0) reason = nullptr;
  }
  if (reason != nullptr) return reason;
  const char* preload = env_value(envp, "LD_PRELOAD");
  if (preload == nullptr || preload_name == nullptr ||
      !list_has_file(preload, preload_name))
    return "its environment has no LD_PRELOAD of the profiler (the program "
           "cleared or replaced it)";
  const char* dir = env_value(envp, "ANDWEORC_DATA_DIR");
  if (dir == nullptr || *dir == '\0')
    return "its environment has no ANDWEORC_DATA_DIR (the program cleared "
           "or replaced it)";
  return nullptr;
}

ANDWEORC_SIGNAL_SAFE void exec_check_note(const char* file, bool search_path,
                                          char* const* envp, const char* verb) {
  if (!runtime_started_by_tool() || file == nullptr) return;
  char path[kPathMax];
  if (search_path) {
    if (!exec_resolve_path(file, path, sizeof path)) return;
  } else {
    path[0] = '\0';
    append_str(path, sizeof path, 0, file);
  }
  const char* reason =
      exec_unprofiled_reason(path, envp, runtime_library_name());
  if (reason == nullptr) return;
  char note[kPathMax + 512];
  size_t len = append_str(note, sizeof note, 0, "process ");
  len += format_u64(uint64_t(raw_syscall(SYS_getpid)), note + len,
                    sizeof note - len - 1);
  note[len] = '\0';
  len = append_str(note, sizeof note, len, " ");
  len = append_str(note, sizeof note, len, verb);
  len = append_str(note, sizeof note, len, " ");
  len = append_str(note, sizeof note, len, path);
  len =
      append_str(note, sizeof note, len, ", which runs without the profiler: ");
  len = append_str(note, sizeof note, len, reason);
  append_str(note, sizeof note, len,
             ". Its samples, progress points and delays are not in this "
             "profile.");
  runtime_write_note_bounded(note);
}

}  // namespace andweorc::runtime

extern "C" ANDWEORC_SIGNAL_SAFE void andweorc_exec_check_note(
    const char* file, int search_path, char* const* envp, const char* verb) {
  andweorc::runtime::exec_check_note(file, search_path != 0, envp, verb);
}
