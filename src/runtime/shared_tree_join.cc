// shared_tree_join.cc: the start-up half of shared_tree.h: the first
// process makes the tree's segment, an exec'd image finds and maps it.
// Not signal-safe (environment, setenv): start-up only.
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runtime/shared_tree.h"

// The runtime's guard for its own descriptors (internal_fds.h). Weak: the
// unit tests link this file without it (then the numbers stay unguarded).
extern "C" int andweorc_fd_adopt(int fd, int* owner, int io_locked)
    __attribute__((weak));

namespace andweorc::runtime {
namespace {

// A memfd of `bytes` that survives exec: moved away from the program's
// numbers and guarded (andweorc_fd_adopt), then made inheritable again
// (adopt's copy is close-on-exec). -1 when it cannot be made.
int inheritable_memfd(const char* name, size_t bytes, int* owner) {
  int fd = int(raw_syscall(SYS_memfd_create, long(name), 0));
  if (fd < 0) return -1;
  if (raw_syscall(SYS_ftruncate, fd, long(bytes)) != 0) {
    raw_syscall(SYS_close, fd);
    return -1;
  }
  if (andweorc_fd_adopt != nullptr) fd = andweorc_fd_adopt(fd, owner, 0);
  *owner = fd;
  raw_syscall(SYS_fcntl, fd, F_SETFD, 0);
  return fd;
}

int g_segment_fd = -1, g_arena_fd = -1;

// Names the descriptors for the images exec'd from this tree.
void export_fds() {
  char value[32];
  size_t n = format_u64(uint64_t(g_segment_fd), value, sizeof value - 12);
  value[n++] = ',';
  n += format_u64(uint64_t(g_arena_fd), value + n, sizeof value - n - 1);
  value[n] = '\0';
  setenv("ANDWEORC_TREE_FDS", value, 1);
}

}  // namespace

TreeSegment* tree_create() {
  if (TreeSegment* t = tree()) return t;
  // memfds, not anonymous memory: an exec'd image maps them again
  // (tree_join_inherited). Without memfds, anonymous: fork children only.
  int seg_fd =
      inheritable_memfd("andweorc-tree", sizeof(TreeSegment), &g_segment_fd);
  void* seg = seg_fd >= 0
                  ? mmap(nullptr, sizeof(TreeSegment), PROT_READ | PROT_WRITE,
                         MAP_SHARED, seg_fd, 0)
                  : mmap(nullptr, sizeof(TreeSegment), PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (seg == MAP_FAILED) return nullptr;
  int arena_fd = seg_fd >= 0 ? inheritable_memfd("andweorc-tree-arena",
                                                 kTreeArenaBytes, &g_arena_fd)
                             : -1;
  void* arena = arena_fd >= 0
                    ? mmap(nullptr, kTreeArenaBytes, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_NORESERVE, arena_fd, 0)
                    : mmap(nullptr, kTreeArenaBytes, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  auto* t = static_cast<TreeSegment*>(seg);  // zero-filled
  t->magic = kTreeMagic;
  t->self = t;
  t->root_pid = int32_t(getpid());
  t->selection.selected = -1;
  if (arena != MAP_FAILED) {
    t->arena = static_cast<char*>(arena);
    t->arena_size = kTreeArenaBytes;
  }
  if (seg_fd >= 0 && arena_fd >= 0 && arena != MAP_FAILED) export_fds();
  tree_install(t, false, 0);
  return t;
}

TreeSegment* tree_join_inherited() {
  if (TreeSegment* t = tree()) return t;
  const char* v = getenv("ANDWEORC_TREE_FDS");
  if (v == nullptr || *v == '\0') return nullptr;
  char* end = nullptr;
  long seg_fd = strtol(v, &end, 10);
  if (end == v || *end != ',') return nullptr;
  const char* a = end + 1;
  long arena_fd = strtol(a, &end, 10);
  if (end == a || *end != '\0' || seg_fd < 0 || arena_fd < 0) return nullptr;
  // A descriptor the program closed, or reused for something else, fails
  // here or has no magic: then this image starts a tree of its own.
  void* seg = mmap(nullptr, sizeof(TreeSegment), PROT_READ | PROT_WRITE,
                   MAP_SHARED, int(seg_fd), 0);
  if (seg == MAP_FAILED) return nullptr;
  auto* t = static_cast<TreeSegment*>(seg);
  // The first process's coordinator may still be reading its own binary:
  // give it up to 100 ms to say whether it has code to experiment on (a
  // shell says "no" within a few ms). Only when experiments are on: else
  // nobody will ever say.
  const char* experiments = getenv("ANDWEORC_EXPERIMENTS");
  if (__atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) == kTreeMagic &&
      experiments != nullptr && strcmp(experiments, "1") == 0)
    for (int i = 0; i < 100 && __atomic_load_n(&t->coordinator_state,
                                               __ATOMIC_ACQUIRE) == 0;
         ++i) {
      timespec ms{0, 1000 * 1000};
      raw_syscall(SYS_nanosleep, long(&ms), 0);
    }
  // Not joined: a damaged or foreign segment; the first process itself
  // after an exec (its coordinator went with its old image: this one starts
  // a tree and a coordinator of its own, as before); a first process with
  // no code to experiment on (a shell running the programs of a script:
  // each of them runs its own experiments, as before).
  if (__atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) != kTreeMagic ||
      t->arena == nullptr || t->root_pid == int32_t(getpid()) ||
      __atomic_load_n(&t->coordinator_state, __ATOMIC_ACQUIRE) == 2) {
    munmap(seg, sizeof(TreeSegment));
    return nullptr;
  }
  void* arena = mmap(nullptr, t->arena_size, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_NORESERVE, int(arena_fd), 0);
  if (arena == MAP_FAILED) {
    munmap(seg, sizeof(TreeSegment));
    return nullptr;
  }
  // Ours again in this image: guarded, and handed on to its own execs.
  g_segment_fd = int(seg_fd);
  g_arena_fd = int(arena_fd);
  if (andweorc_fd_adopt != nullptr) {
    andweorc_fd_adopt(g_segment_fd, &g_segment_fd, 0);
    andweorc_fd_adopt(g_arena_fd, &g_arena_fd, 0);
    raw_syscall(SYS_fcntl, g_segment_fd, F_SETFD, 0);
    raw_syscall(SYS_fcntl, g_arena_fd, F_SETFD, 0);
    export_fds();
  }
  tree_install(t, true, static_cast<char*>(arena) - t->arena);
  return t;
}

}  // namespace andweorc::runtime
