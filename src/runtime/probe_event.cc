// probe_event.cc: see probe_event.h. Start-up and fork-child code (never
// from a signal handler), but checked like the handler-reachable objects:
// it only uses system calls and string functions.
#include "runtime/probe_event.h"

#include <fcntl.h>
#include <link.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "andweorc/andweorc.h"

namespace andweorc::runtime {

bool probe_parse_line(const char* line, const char* end, ProbeEvent* e) {
  const char* fields[6];
  size_t lens[6] = {};
  const char* p = line;
  int count = 0;
  for (int i = 0; i < 6 && (i < 5 || p < end); ++i) {
    const char* stop = p;
    while (stop < end && *stop != '\t' && *stop != '\n') ++stop;
    fields[i] = p;
    lens[i] = size_t(stop - p);
    count = i + 1;
    bool tab = stop < end && *stop == '\t';
    p = stop < end ? stop + 1 : end;
    if (!tab) break;
  }
  if (count < 5 || lens[0] == 0 || lens[0] >= kProbeTextMax || lens[2] == 0 ||
      lens[2] >= kProbeTextMax)
    return false;
  memcpy(e->name, fields[0], lens[0]);
  e->name[lens[0]] = '\0';
  memcpy(e->path, fields[2], lens[2]);
  e->path[lens[2]] = '\0';
  e->patch[0] = '\0';
  if (count == 6 && lens[5] < kProbePatchTextMax) {
    memcpy(e->patch, fields[5], lens[5]);
    e->patch[lens[5]] = '\0';
  }
  e->patch_index = -1;
  e->kind = atoi(fields[1]);
  e->end_at_address = e->kind == kKindEndAtAddress;
  if (e->end_at_address) e->kind = ANDWEORC_KIND_END;
  e->offset = strtoull(fields[3], nullptr, 16);
  e->vaddr = strtoull(fields[4], nullptr, 16);
  e->slot = 0;
  e->fd = -1;
  e->bias = 0;
  e->live_id = 0;
  e->removed = false;
  e->hooked = -1;
  return (e->kind >= ANDWEORC_KIND_THROUGHPUT &&
          e->kind <= ANDWEORC_KIND_END) ||
         (e->kind >= kKindTraceEntry && e->kind <= kKindLatencyExit);
}

namespace {

struct ObjectQuery {
  bool main;  // the main executable: the first object
  dev_t dev;
  ino_t ino;
  bool found;
  uint64_t bias;
};

int find_object(dl_phdr_info* info, size_t, void* arg) {
  auto* q = static_cast<ObjectQuery*>(arg);
  if (q->main) {
    q->found = true;
    q->bias = info->dlpi_addr;
    return 1;
  }
  // dlpi_name is the path the loader opened ("" for the executable, a name
  // without '/' for the vDSO).
  struct stat st;
  if (info->dlpi_name == nullptr || strchr(info->dlpi_name, '/') == nullptr ||
      stat(info->dlpi_name, &st) != 0 || st.st_dev != q->dev ||
      st.st_ino != q->ino)
    return 0;
  q->found = true;
  q->bias = info->dlpi_addr;
  return 1;
}

}  // namespace

bool probe_object_bias(const char* path, const char* exe, uint64_t* bias) {
  ObjectQuery q{strcmp(path, exe) == 0, 0, 0, false, 0};
  if (!q.main) {
    struct stat st;
    if (stat(path, &st) != 0) return false;
    q.dev = st.st_dev;
    q.ino = st.st_ino;
  }
  dl_iterate_phdr(find_object, &q);
  *bias = q.bias;
  return q.found;
}

int probe_uprobe_type() {
  int fd =
      open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[16] = {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n > 0 ? atoi(buf) : -1;
}

uint64_t probe_retprobe_config() {
  int fd = open("/sys/bus/event_source/devices/uprobe/format/retprobe",
                O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1;
  char buf[32] = {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  const char* colon = n > 0 ? strchr(buf, ':') : nullptr;
  int bit = colon ? atoi(colon + 1) : 0;
  return bit >= 0 && bit < 64 ? uint64_t(1) << bit : 1;
}

int probe_open_event(const ProbeEvent& e, int type, uint64_t bias,
                     uint64_t retprobe_config) {
  perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  if (e.breakpoint) {
    attr.type = PERF_TYPE_BREAKPOINT;
    attr.bp_type = HW_BREAKPOINT_X;
    attr.bp_addr = e.vaddr + bias;  // the object's own bias (e.bias)
    attr.bp_len = sizeof(long);
  } else {
    attr.type = uint32_t(type);
    // END of a --latency point: the function's return (a uretprobe).
    if (e.kind == ANDWEORC_KIND_END && !e.end_at_address)
      attr.config = retprobe_config;
    // The kernel reads this path again, from our memory, each time a new
    // thread inherits the event: it must stay valid and unchanged for the
    // life of the process (g_events is static and never rewritten). A
    // dangling path makes the program's pthread_create fail (ENOENT).
    attr.config1 = reinterpret_cast<uint64_t>(e.path);
    attr.config2 = e.offset;
  }
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  // Every thread created later counts into this event (read() sums them);
  // a forked process does not (inherit_thread), it opens its own.
  attr.inherit = 1;
  attr.inherit_thread = 1;
  return int(
      syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace andweorc::runtime
