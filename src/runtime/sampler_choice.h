// sampler_choice.h: which sampler a process and each of its threads get
// (perf task-clock events, or POSIX CPU-time timers when perf is not
// allowed), and why perf is not used, in words for the report. Ordinary
// code: start-up and thread creation, never a signal handler.
#ifndef ANDWEORC_RUNTIME_SAMPLER_CHOICE_H_
#define ANDWEORC_RUNTIME_SAMPLER_CHOICE_H_

#include <cstddef>
#include <cstdint>

#include "runtime/runtime.h"

namespace andweorc::runtime {

struct ThreadState;

// Tries perf on the main thread (unless the configuration forces timers)
// and returns the process's raw::SamplerKind. On the timer fallback,
// `note` gets one line for the report: why, and the fix (empty with perf).
uint32_t choose_process_sampler(ThreadState* main_thread, const Config& config,
                                char* note, size_t cap);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SAMPLER_CHOICE_H_
