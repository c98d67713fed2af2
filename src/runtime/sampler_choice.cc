// sampler_choice.cc: see sampler_choice.h; also the per-thread sampler
// calls of runtime.h (start_thread_sampler and its two stops).
#include "runtime/sampler_choice.h"

#include <stdio.h>
#include <string.h>

#include "runtime/perf_sampler.h"
#include "runtime/raw_format.h"
#include "runtime/sample_period.h"
#include "runtime/thread_state.h"
#include "runtime/timer_sampler.h"

namespace andweorc::runtime {
namespace {

const char* paranoid_level(char* buf, size_t cap) {
  buf[0] = '\0';
  FILE* f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (f == nullptr) return buf;
  if (fgets(buf, int(cap), f) == nullptr) buf[0] = '\0';
  fclose(f);
  buf[strcspn(buf, "\n")] = '\0';
  return buf;
}

// Why perf is not used, as one line for the report, with the fix. A null
// step: the timers were asked for.
void note_fallback(const char* step, int error, char* note, size_t cap) {
  if (step == nullptr) {
    snprintf(note, cap,
             "sampler: timer fallback requested (ANDWEORC_SAMPLER=timer); "
             "samples come every scheduler tick (~4 ms) without kernel call "
             "chains");
  } else {
    char level[32];
    paranoid_level(level, sizeof level);
    snprintf(note, cap,
             "sampler: perf_event_open unavailable (%s: %s, "
             "kernel.perf_event_paranoid=%s); using the timer fallback "
             "(~4 ms granularity, frame-pointer call chains). Fix: sudo sysctl "
             "kernel.perf_event_paranoid=1",
             step, strerror(error), level[0] ? level : "?");
  }
}

}  // namespace

uint32_t choose_process_sampler(ThreadState* main_thread, const Config& config,
                                char* note, size_t cap) {
  if (cap > 0) note[0] = '\0';
  int error = 0;
  const char* step = nullptr;
  if (!config.force_timer &&
      perf_start(main_thread, config.period_ns, kProfilerSignal, &error, &step))
    return raw::kSamplerPerf;
  if (!config.timer_chosen_by_tool)
    note_fallback(config.force_timer ? nullptr : step, error, note, cap);
  return raw::kSamplerTimer;
}

void start_thread_sampler(ThreadState* s) {
  if (!runtime_active() || s->perf_fd >= 0 || s->has_timer) return;
  // A new thread (or a reused slot) samples at the period in force now.
  s->period_multiple = sample_period_multiple();
  int error = 0;
  const char* step = nullptr;
  if (sampler_kind() == raw::kSamplerPerf &&
      perf_start(s, config().period_ns, kProfilerSignal, &error, &step)) {
    s->sampler = raw::kSamplerPerf;
    return;
  }
  // Per-thread fallback, e.g. when the perf mlock budget runs out.
  if (timer_start(s, config().period_ns, kProfilerSignal, &error))
    s->sampler = raw::kSamplerTimer;
}

void stop_thread_sampler(ThreadState* s) {
  perf_stop(s);
  timer_stop(s);
}

void disable_thread_sampler(ThreadState* s) {
  perf_disable(s);
  timer_disable(s);
}

}  // namespace andweorc::runtime
