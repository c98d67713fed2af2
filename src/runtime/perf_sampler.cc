// perf_sampler.cc: perf_event_open task-clock sampler (see perf_sampler.h).
#include "runtime/perf_sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "runtime/attach_settings.h"
#include "runtime/internal_fds.h"
#include "runtime/perf_sample_attr.h"
#include "runtime/raw_format.h"
#include "runtime/sample_hook.h"
#include "runtime/timer_sampler.h"

namespace andweorc::runtime {
namespace {

// 1 metadata page + 4 data pages. Small on purpose: the per-user mlock budget
// for perf rings is ~9 MiB when not root (platform notes), and the handler
// empties the ring on every sample.
constexpr size_t kDataPages = 4;

long perf_event_open(perf_event_attr* attr, int tid) {
  return syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

// Switch-heavy threads leave perf for the timer (perf_watch_switches):
// more than this many context switches per millisecond of CPU, over a
// check window. At ~2-6 us per switch for the event's hrtimer in this VM
// (docs/design.md, cost model; switch_cost: +25 us per ping-pong round
// trip of ~4 switches), 8 switches/ms cost 2-5%.
constexpr uint64_t kSwitchesPerMs = 8;
constexpr uint64_t kCheckWindowNs = 4000000;  // at least 4 ms of CPU
// ... looked at at most once per this much wall time when the samples do
// not cover the window (perf_watch_switches): several windows, since a busy
// thread on a loaded machine also sees far more wall time than CPU time.
constexpr uint64_t kCheckWallNs = 4 * kCheckWindowNs;
// ANDWEORC_SAMPLER_SWITCH=0 keeps every thread on perf (set once, before
// any thread samples).
bool g_switch_watch = true;
// The sampling period and signal of every thread (the same for all; set by
// perf_start before the thread's event is enabled).
uint64_t g_period_ns = 1000000;
int g_signal = SIGPROF;
// Handlers between their load of a perf page and their last use of it
// (perf_drain). perf_release waits for zero after taking the page away, so
// it can unmap a ring from another thread (seq_cst on both sides).
int g_drains_in_flight = 0;

// The calling thread's context switches and CPU time (user + system).
// Involuntary switches count too: the event's timer is cancelled and
// re-armed at a preemption as at a block, and a server preempted by its
// load generator on the same cores pays for both (nginx beside its client:
// 0.3-0.5 voluntary but 16-21 involuntary switches per ms of CPU, and it
// lost ~30% of its throughput on perf against ~0% on the timer).
ANDWEORC_SIGNAL_SAFE bool thread_usage(uint64_t* switches, uint64_t* cpu_ns) {
  rusage ru;
  if (raw_syscall(SYS_getrusage, RUSAGE_THREAD, long(&ru)) != 0) return false;
  *switches = uint64_t(ru.ru_nvcsw) + uint64_t(ru.ru_nivcsw);
  *cpu_ns = uint64_t(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
            uint64_t(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
  return true;
}

// Copies `len` bytes at ring position `pos` out of the perf data area,
// wrapping at its end. The kernel makes data_size a power of two (the data
// pages must be), so a mask replaces the division a byte-wise `%` did for
// every byte of every record.
ANDWEORC_SIGNAL_SAFE void ring_copy(const uint8_t* data, uint64_t size,
                                    uint64_t pos, void* out, size_t len) {
  const uint64_t off = pos & (size - 1);
  const size_t first = len < size - off ? len : size_t(size - off);
  memcpy(out, data + off, first);
  memcpy(static_cast<uint8_t*>(out) + first, data, len - first);
}

// getrusage (a syscall) once per check window, not at every sample. A busy
// thread's samples come one per period of CPU, so their count says when the
// window is full. A thread that mostly runs in the kernel or blocks gets
// few samples (kernel-mode ones are not delivered), so their time decides
// for it: it checks at most once per kCheckWallNs of wall time (the old
// code checked at every sample), until it has used a window of CPU.
ANDWEORC_TLS uint32_t t_samples_since_check = 0;
ANDWEORC_TLS uint64_t t_last_sample_ns = 0;   // CLOCK_MONOTONIC, last sample
ANDWEORC_TLS uint64_t t_check_sample_ns = 0;  // ... when the window began

}  // namespace

bool perf_start(ThreadState* s, uint64_t period_ns, int signal_number,
                int* error, const char** step) {
  // A slot used before (a thread that exited, or an attach that ended) has
  // this set by perf_stop/perf_release: the new event is not being stopped.
  s->perf_stopping = false;
  perf_event_attr attr = perf_sample_attr(period_ns * s->period_multiple);

  long fd = perf_event_open(&attr, s->tid);
  if (fd < 0) {
    *error = errno;
    *step = "perf_event_open";
    return false;
  }
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t bytes = page * (1 + kDataPages);
  void* mem =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, int(fd), 0);
  if (mem == MAP_FAILED) {
    *error = errno;
    *step = "mmap";
    close(int(fd));
    return false;
  }
  f_owner_ex owner{F_OWNER_TID, s->tid};
  if (fcntl(int(fd), F_SETFL, O_ASYNC) != 0 ||
      fcntl(int(fd), F_SETSIG, signal_number) != 0 ||
      fcntl(int(fd), F_SETOWN_EX, &owner) != 0) {
    *error = errno;
    *step = "fcntl";
    munmap(mem, bytes);
    close(int(fd));
    return false;
  }
  static bool read_env = false;
  if (!read_env) {
    const char* v = runtime_setting("ANDWEORC_SAMPLER_SWITCH");
    g_switch_watch = v == nullptr || v[0] != '0';
    read_env = true;
  }
  g_period_ns = period_ns;
  g_signal = signal_number;
  timer_note_stack(s);
  // The counts are the calling thread's: for a thread prepared by another
  // (prepare_running_thread) the first check counts from the thread's start.
  if (s->tid != current_tid() ||
      !thread_usage(&s->switches_at_check, &s->cpu_at_check_ns))
    s->switches_at_check = s->cpu_at_check_ns = 0;
  // A high, guarded number (internal_fds.h); s->perf_fd follows it if the
  // program dup2s onto it.
  andweorc_fd_adopt(int(fd), &s->perf_fd, 0);
  fd = s->perf_fd;
  s->perf_page = static_cast<perf_event_mmap_page*>(mem);
  s->perf_mmap_bytes = bytes;
  ioctl(int(fd), PERF_EVENT_IOC_RESET, 0);
  ioctl(int(fd), PERF_EVENT_IOC_ENABLE, 0);
  return true;
}

void perf_stop(ThreadState* s) {
  int fd = __atomic_load_n(&s->perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0) return;
  s->perf_stopping = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  void* page = __atomic_exchange_n(&s->perf_page, nullptr, __ATOMIC_ACQ_REL);
  if (page != nullptr) munmap(page, s->perf_mmap_bytes);
  // Closes the number only if it is still ours (internal_fds.h).
  andweorc_fd_release(&s->perf_fd);
}

void perf_disable(ThreadState* s) {
  int fd = __atomic_load_n(&s->perf_fd, __ATOMIC_ACQUIRE);
  if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

void perf_release(ThreadState* s) {
  s->perf_stopping = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  int fd = __atomic_load_n(&s->perf_fd, __ATOMIC_ACQUIRE);
  if (fd >= 0) ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  void* page = __atomic_exchange_n(&s->perf_page, nullptr, __ATOMIC_SEQ_CST);
  if (page != nullptr) {
    // A handler that loaded the page before the exchange is counted in
    // g_drains_in_flight until it is done with it. Bounded: if handlers
    // never drain to zero within a second the ring is left mapped (a few
    // pages) rather than unmapped under a reader.
    bool quiet = false;
    for (int i = 0; i < 1000 && !quiet; ++i) {
      quiet = __atomic_load_n(&g_drains_in_flight, __ATOMIC_SEQ_CST) == 0;
      if (!quiet) {
        timespec ts{0, 1000000};
        nanosleep(&ts, nullptr);
      }
    }
    if (quiet) munmap(page, s->perf_mmap_bytes);
  }
  andweorc_fd_release(&s->perf_fd);
}

namespace {
ANDWEORC_SIGNAL_SAFE uint32_t drain_page(ThreadState* s,
                                         perf_event_mmap_page* meta);
}

ANDWEORC_SIGNAL_SAFE uint32_t perf_drain(ThreadState* s) {
  __atomic_add_fetch(&g_drains_in_flight, 1, __ATOMIC_SEQ_CST);
  perf_event_mmap_page* meta = __atomic_load_n(&s->perf_page, __ATOMIC_SEQ_CST);
  uint32_t samples = meta != nullptr ? drain_page(s, meta) : 0;
  __atomic_sub_fetch(&g_drains_in_flight, 1, __ATOMIC_SEQ_CST);
  return samples;
}

namespace {
ANDWEORC_SIGNAL_SAFE uint32_t drain_page(ThreadState* s,
                                         perf_event_mmap_page* meta) {
  uint32_t samples = 0;
  const uint8_t* data =
      reinterpret_cast<const uint8_t*>(meta) + meta->data_offset;
  const uint64_t size = meta->data_size;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;

  // Records may wrap around the end of the ring: copy each one out first.
  alignas(8) uint8_t record[64 + 8 * (raw::kMaxFrames + 8)];
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header h;
    ring_copy(data, size, tail, &h, sizeof h);
    if (h.size == 0 || tail + h.size > head) break;
    if (h.type == PERF_RECORD_SAMPLE && h.size <= sizeof record) {
      ++samples;
      ring_copy(data, size, tail, record, h.size);
      // Layout for IP|TID|TIME|CALLCHAIN: ip, pid+tid, time, nr, ips[nr].
      const uint64_t* w = reinterpret_cast<const uint64_t*>(record + sizeof h);
      // Samples taken while this thread spins off a delay are the
      // profiler's own time, not the program's: neither a sample nor a hit.
      // Those taken before the delay began are the program's.
      if (s->delay.in_delay && w[2] >= s->delay.delay_started_ns) {
        tail += h.size;
        continue;
      }
      raw::SampleHeader sh{};
      sh.tid = uint32_t(w[1] >> 32);
      sh.time_ns = w[2];
      sh.weight = s->period_multiple;  // of the run's periods
      uint64_t nr = w[3];
      uint64_t frames[raw::kMaxFrames];
      int n = 0;
      frames[n++] = w[0];
      bool first = true;
      for (uint64_t i = 0; i < nr && n < raw::kMaxFrames; ++i) {
        uint64_t ip = w[4 + i];
        if (ip >= PERF_CONTEXT_MAX) continue;  // context markers
        // The user chain starts with the sampled IP itself.
        if (first && ip == w[0]) {
          first = false;
          continue;
        }
        first = false;
        frames[n++] = ip;
      }
      sh.nframes = uint16_t(n);
      t_samples_since_check += sh.weight;
      t_last_sample_ns = sh.time_ns;
      s->ring.push(&sh, sizeof sh, frames, size_t(n) * sizeof(uint64_t));
      on_sample_taken(s, frames, n, sh.weight);
    } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
      uint64_t lost;
      ring_copy(data, size, tail + sizeof h + 8, &lost, sizeof lost);
      s->ring.count_dropped(lost);
    }
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
  return samples;
}
}  // namespace

ANDWEORC_SIGNAL_SAFE void perf_watch_switches(ThreadState* s) {
  if (!g_switch_watch || s->has_timer) return;
  if (uint64_t(t_samples_since_check) * g_period_ns < kCheckWindowNs &&
      t_last_sample_ns - t_check_sample_ns < kCheckWallNs)
    return;
  uint64_t switches = 0, cpu_ns = 0;
  if (!thread_usage(&switches, &cpu_ns)) return;
  uint64_t cpu = cpu_ns - s->cpu_at_check_ns;
  // Look again only after another window of samples or kCheckWallNs of
  // wall time, even when getrusage does not show a window of CPU yet: it
  // lags the event's clock (the thread's runtime is brought up to date at
  // the scheduler tick, every 4 ms here, so 40 samples of 100 us read as
  // 1.4-4 ms), and looking at every sample until it caught up made this a
  // syscall per sample again. The switch and CPU counts keep running from
  // the last full check.
  t_samples_since_check = 0;
  t_check_sample_ns = t_last_sample_ns;
  if (cpu < kCheckWindowNs) return;
  uint64_t n = switches - s->switches_at_check;
  s->switches_at_check = switches;
  s->cpu_at_check_ns = cpu_ns;
  if (n * 1000000 <= kSwitchesPerMs * cpu) return;
  const uint64_t period_ns = g_period_ns;
  // Stop the event first (no new perf signals), start the timer, then close
  // the event: even disabled, it keeps a perf context on the thread that
  // every context switch walks. The handler has just drained the ring.
  int fd = __atomic_load_n(&s->perf_fd, __ATOMIC_ACQUIRE);
  if (fd < 0 || s->perf_stopping) return;
  raw_syscall(SYS_ioctl, fd, PERF_EVENT_IOC_DISABLE, 0);
  if (!timer_start_from_handler(s, period_ns * s->period_multiple, g_signal)) {
    // No timer: keep perf rather than lose the thread's samples.
    raw_syscall(SYS_ioctl, fd, PERF_EVENT_IOC_ENABLE, 0);
    return;
  }
  s->sampler = raw::kSamplerTimer;
  // As perf_stop: whoever takes fd/page first releases them (perf_stop may
  // be what this handler interrupted).
  void* page = __atomic_exchange_n(&s->perf_page, nullptr, __ATOMIC_ACQ_REL);
  if (page != nullptr)
    raw_syscall(SYS_munmap, long(page), long(s->perf_mmap_bytes));
  // Closes the number only if it is still ours (internal_fds.h: the program
  // may have dup2'd onto it); async-signal-safe.
  andweorc_fd_release(&s->perf_fd);
}

}  // namespace andweorc::runtime
