// raw_writer.cc: the raw record file (see raw_writer.h and raw_format.h).
#include "runtime/raw_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "runtime/internal_fds.h"
#include "runtime/raw_format.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

int g_fd = -1;
// Bytes in the file (only we write it). Every record starts at a record
// boundary: a write the disk cut short is truncated away again, so a torn
// record is never followed by others (readers stop at a torn record).
uint64_t g_offset = 0;
// The file reached RLIMIT_FSIZE (reserve kept for the last words) or the
// disk is full: nothing more is written.
bool g_stopped = false;
bool g_limit_noted = false;
// Room kept under the file size limit for the note that says why the file
// ends early, the last points snapshot and the end record.
constexpr uint64_t kReserveBytes = 16 * 1024;
// Staging for sample batches and maps text. Only touched under io_lock.
alignas(8) uint8_t g_staging[64 * 1024];
char g_maps[1 << 20];
// /proc/self/maps is read through this, a line at a time.
char g_maps_chunk[64 * 1024];
bool g_maps_cut_noted = false;

// True for a maps line that names what is mapped (a file, [vdso], [heap],
// [anon:name]): the fields are address, perms, offset, dev, inode, then
// the name after padding. Pure anonymous memory has no name, and the tool
// treats an address there exactly as an address in no mapping at all, so
// those lines, which are most of a big process's maps (thread stacks,
// allocator arenas, JIT pages), are left out.
ANDWEORC_SIGNAL_SAFE bool maps_line_names_something(const char* line,
                                                    size_t n) {
  size_t i = 0;
  for (int field = 0; field < 5; ++field) {
    while (i < n && line[i] != ' ' && line[i] != '\n') ++i;
    while (i < n && line[i] == ' ') ++i;
  }
  return i < n && line[i] != '\n';
}

}  // namespace

bool raw_open(const char* data_dir, uint32_t sampler, uint64_t period_ns) {
  char path[1200];
  int pid = int(getpid());
  int fd = -1;
  if (data_dir[0] == '\0') {
    // A file with no name: nothing is left behind, even after a crash. On
    // disk when the temporary directory is (samples add up in long runs),
    // else in memory.
    const char* tmp = getenv("TMPDIR");
    fd = open(tmp && *tmp ? tmp : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) fd = memfd_create("andweorc-raw", MFD_CLOEXEC);
  }
  for (int seq = 0; seq < 1000 && fd < 0 && data_dir[0] != '\0'; ++seq) {
    // <data_dir>/raw-<pid>-<seq>.awr, built without stdio: this object is
    // checked to reference no unsafe symbol (signal_safety_check.sh).
    size_t len = append_str(path, sizeof path, 0, data_dir);
    len = append_str(path, sizeof path, len, "/raw-");
    len += format_u64(uint64_t(pid), path + len, sizeof path - len - 1);
    path[len] = '\0';
    len = append_str(path, sizeof path, len, "-");
    len += format_u64(uint64_t(seq), path + len, sizeof path - len - 1);
    path[len] = '\0';
    append_str(path, sizeof path, len, raw::kRawSuffix);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0600);
    if (fd < 0 && errno != EEXIST) return false;
  }
  if (fd < 0) return false;
  // A high, guarded number: the program can neither close it nor have its
  // own files opened under it (internal_fds.h).
  andweorc_fd_adopt(fd, &g_fd, 1);
  g_offset = 0;
  g_stopped = false;
  g_limit_noted = false;

  raw::FileHeader fh{};
  memcpy(fh.magic, raw::kMagic, sizeof fh.magic);
  fh.version = raw::kRawVersion;
  fh.header_size = sizeof fh;
  if (write_all(g_fd, &fh, sizeof fh)) g_offset = sizeof fh;

  raw::ProcessRecord pr{};
  pr.pid = pid;
  pr.ppid = int(getppid());
  pr.start_monotonic_ns = monotonic_ns();
  pr.start_realtime_ns = realtime_ns();
  pr.sampler = sampler;
  pr.period_ns = period_ns;
  char exe[1024];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = '\0';
  raw_write(raw::kProcess, &pr, sizeof pr, exe, strlen(exe) + 1);
  return true;
}

void raw_close() { andweorc_fd_release(&g_fd); }

ANDWEORC_SIGNAL_SAFE bool raw_is_open() { return g_fd >= 0; }

int raw_fd() { return g_fd; }

namespace {

// RLIMIT_FSIZE now (the program may change it), or ~0.
ANDWEORC_SIGNAL_SAFE uint64_t file_size_limit() {
  rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
    return ~0ull;
  return rl.rlim_cur;
}

ANDWEORC_SIGNAL_SAFE void write_record(uint32_t type, const void* a,
                                       size_t alen, const void* b, size_t blen,
                                       bool last_words);

// Past the file size limit the kernel would answer SIGXFSZ, which kills
// the program: stop short of it, with a note while the reserve lasts.
ANDWEORC_SIGNAL_SAFE bool fits(uint64_t total, bool last_words) {
  uint64_t limit = file_size_limit();
  if (limit == ~0ull) return true;
  uint64_t usable = limit > kReserveBytes ? limit - kReserveBytes : 0;
  if (g_offset + total <= usable) return true;
  if (!g_limit_noted) {
    g_limit_noted = true;
    static const char kNote[] =
        "raw data: the file size limit (ulimit -f) was reached; samples "
        "after this point are missing from this process";
    write_record(raw::kNote, kNote, sizeof kNote - 1, nullptr, 0, true);
  }
  return last_words && g_offset + total <= limit;
}

ANDWEORC_SIGNAL_SAFE void write_record(uint32_t type, const void* a,
                                       size_t alen, const void* b, size_t blen,
                                       bool last_words) {
  if (g_fd < 0 || g_stopped) return;
  raw::RecordHeader h{type, uint32_t(alen + blen)};
  static const uint8_t kZeros[8] = {};
  size_t pad = raw::padded8(h.size) - h.size;
  size_t total = sizeof h + alen + blen + pad;
  if (!fits(total, last_words)) return;
  iovec iov[4] = {{&h, sizeof h},
                  {const_cast<void*>(a), alen},
                  {const_cast<void*>(b), blen},
                  {const_cast<uint8_t*>(kZeros), pad}};
  long n;
  do {
    n = raw_syscall(SYS_writev, g_fd, reinterpret_cast<long>(iov), 4);
  } while (n == -EINTR);
  if (n == long(total)) {
    g_offset += total;
    return;
  }
  // Disk full (or cut short otherwise): take the torn record back out and
  // write nothing more, so that everything before it stays readable.
  raw_syscall(SYS_ftruncate, g_fd, long(g_offset));
  g_stopped = true;
}

}  // namespace

ANDWEORC_SIGNAL_SAFE void raw_write(uint32_t type, const void* a, size_t alen,
                                    const void* b, size_t blen) {
  // The end record and the final snapshot may use the reserve.
  bool last_words = type == raw::kEnd || type == raw::kPoints;
  write_record(type, a, alen, b, blen, last_words);
}

ANDWEORC_SIGNAL_SAFE void raw_write_note(const char* text) {
  raw_write(raw::kNote, text, strlen(text));
}

ANDWEORC_SIGNAL_SAFE void raw_write_maps() {
  // Guarded while open: a program thread closing everything meanwhile must
  // not make us read (and move the offset of) a file of its own.
  static int fd = -1;
  // The snapshot's time, read before the maps (raw_format.h, kMapsTime).
  raw::MapsTimeRecord when{monotonic_ns()};
  int opened = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (opened < 0) return;
  raw_write(raw::kMapsTime, &when, sizeof when);
  andweorc_fd_adopt(opened, &fd, 1);
  // Line by line, keeping the lines that name something: a process with
  // tens of thousands of anonymous mappings has more than the buffer's
  // 1 MiB of maps, and a cut snapshot lost the libraries' lines, which come
  // last (issue 12 item 9).
  size_t len = 0, carry = 0;
  bool cut = false;
  for (;;) {
    long n = raw_syscall(SYS_read, fd, long(g_maps_chunk + carry),
                         long(sizeof g_maps_chunk - carry));
    if (n == -EINTR) continue;
    bool eof = n <= 0;
    size_t have = carry + (n > 0 ? size_t(n) : 0), pos = 0;
    for (;;) {
      const void* nl = memchr(g_maps_chunk + pos, '\n', have - pos);
      size_t end = nl != nullptr
                       ? size_t(static_cast<const char*>(nl) - g_maps_chunk) + 1
                   : eof && pos < have ? have
                                       : 0;
      if (end == 0) break;
      size_t line = end - pos;
      if (maps_line_names_something(g_maps_chunk + pos, line)) {
        if (len + line <= sizeof g_maps) {
          memcpy(g_maps + len, g_maps_chunk + pos, line);
          len += line;
        } else {
          cut = true;
        }
      }
      pos = end;
    }
    if (eof) break;
    carry = have - pos;
    // A line longer than the chunk cannot be (names are < 4096 bytes).
    if (carry == sizeof g_maps_chunk) carry = 0;
    memmove(g_maps_chunk, g_maps_chunk + pos, carry);
  }
  andweorc_fd_release(&fd);
  raw_write(raw::kMaps, g_maps, len);
  if (cut && !g_maps_cut_noted) {
    g_maps_cut_noted = true;
    raw_write_note(
        "maps: the process's named mappings exceed 1 MiB of text; the "
        "snapshot lost some, and samples in them have no module");
  }
}

namespace {

// Moves one ring's complete samples into g_staging, writing a kSamples record
// whenever it fills. Returns the samples the ring dropped.
ANDWEORC_SIGNAL_SAFE uint64_t stage_ring(ThreadState* s, size_t* staged) {
  if (!s->ring.ready()) return 0;
  size_t avail = s->ring.readable();
  while (avail >= sizeof(raw::SampleHeader)) {
    raw::SampleHeader sh;
    s->ring.peek(0, &sh, sizeof sh);
    size_t len = sizeof sh + size_t(sh.nframes) * sizeof(uint64_t);
    if (len > avail) break;  // cannot happen: pushes are whole records
    if (*staged + len > sizeof g_staging) {
      raw_write(raw::kSamples, g_staging, *staged);
      *staged = 0;
    }
    s->ring.peek(0, g_staging + *staged, len);
    *staged += len;
    s->ring.consume(len);
    avail -= len;
  }
  return s->ring.take_dropped();
}

ANDWEORC_SIGNAL_SAFE void flush_staged(size_t staged, uint64_t lost) {
  if (staged > 0) raw_write(raw::kSamples, g_staging, staged);
  if (lost > 0) {
    raw::LostRecord lr{lost};
    raw_write(raw::kLost, &lr, sizeof lr);
  }
}

}  // namespace

ANDWEORC_SIGNAL_SAFE void raw_drain_all_rings() {
  if (g_fd < 0) return;
  uint64_t lost = 0;
  size_t staged = 0;
  for (int i = 0, n = thread_slot_count(); i < n; ++i)
    lost += stage_ring(thread_slot(i), &staged);
  flush_staged(staged, lost);
}

ANDWEORC_SIGNAL_SAFE void raw_drain_ring(ThreadState* s) {
  if (g_fd < 0) return;
  size_t staged = 0;
  uint64_t lost = stage_ring(s, &staged);
  flush_staged(staged, lost);
}

}  // namespace andweorc::runtime
