// runtime.h: process-wide runtime state, start-up and shut-down.
//
// The constructor in runtime.cc reads the configuration from the environment
// (set by `andweorc run`), chooses the sampler, opens the raw output file,
// installs the signal handlers, registers the main thread and starts the
// collector. Shutdown (exit, _exit, exec, fatal signal) writes everything
// collected so far.
#ifndef ANDWEORC_RUNTIME_RUNTIME_H_
#define ANDWEORC_RUNTIME_RUNTIME_H_

#include <signal.h>
#include <stdint.h>

#include "runtime/delay_engine.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// The signal perf overflows and timers deliver. SIGPROF rather than a
// real-time signal: real-time signals queue, and when that queue overflows
// the kernel sends SIGIO instead, whose default action kills the process.
inline constexpr int kProfilerSignal = SIGPROF;

struct Config {
  bool enabled = false;          // ANDWEORC_DATA_DIR is set
  char data_dir[1024] = {};      // where raw files go
  uint64_t period_ns = 1000000;  // ANDWEORC_SAMPLE_PERIOD_NS (default 1 ms)
  bool force_timer = false;      // ANDWEORC_SAMPLER=timer (or timer-auto)
  // ANDWEORC_SAMPLER=timer-auto: the tool chose the timer (run --sampler
  // auto) and says why in the profile; no note of ours.
  bool timer_chosen_by_tool = false;
  // Fork children take part in the first process's experiments (a shared
  // segment, shared_tree.h); ANDWEORC_PROCESS_TREE=0 (--no-follow-forks)
  // keeps experiments in the first process, as before issue 15.
  bool process_tree = true;
};

const Config& config();

// Starts the runtime from andweorc::init() in a program that linked the
// library, when the constructor did not (no ANDWEORC_DATA_DIR). Records go
// to an anonymous memory file (raw_writer.h) that the Runner reads.
enum class LinkedStart { kStarted, kAlreadyActive, kFailed, kShadowed };
LinkedStart runtime_start_linked(uint64_t period_ns, bool force_timer);
// `andweorc attach` (attach_entry.cc): starts the runtime in a process that
// loaded this library with dlopen, with the settings of the file at
// `settings_path` (attach_settings.h): threads already running are
// registered, samplers, collector and coordinator start. The preload path
// never calls it.
enum class AttachStart {
  kStarted = 0,
  kAlreadyAttached = 1,  // an attach is running
  kAlreadyActive = 2,    // started by preload (`andweorc run`) or linked
  kShadowed = 3,         // another copy of the runtime is first in line
  kBadSettings = 4,      // the file is unreadable or sets no data directory
  kFailed = 5,           // start-up failed (a note went to standard error)
};
AttachStart runtime_attach_start(const char* settings_path);
// Ends what runtime_attach_start began: the experiment ends, the
// coordinator and collector threads exit (joined), samplers stop and their
// events close, the raw file is completed and closed. The library stays
// loaded and inert (its handlers pass the program's signals on); a later
// runtime_attach_start starts again. False when no attach is running.
bool runtime_attach_stop();
// True between runtime_attach_start and runtime_attach_stop.
bool runtime_attached();
// The calling thread is the runtime's own (collector, coordinator): the
// scan for the program's threads (early_threads.h) passes it by. It is
// also named `name` (at most 15 characters, "andweorc-..."): `top -H`,
// perf and the tool's CPU accounting (cpu_wait_monitor.h) tell it from
// the program's threads by that name.
void note_runtime_thread(const char* name);
// The calling runtime thread is about to return: its CPU time is kept for
// runtime_threads_cpu (a thread that ends without saying so is not
// counted).
void note_runtime_thread_end();
// CPU time of the runtime's threads so far (ended and running ones), ns.
uint64_t runtime_threads_cpu();
bool is_runtime_thread(int tid);
// True when `andweorc run` started this runtime (records go to its
// directory and its coordinator may be running experiments).
ANDWEORC_SIGNAL_SAFE bool runtime_started_by_tool();
// The runtime library's file name ("libandweorc.so"), found at start-up;
// "" when it could not be told.
ANDWEORC_SIGNAL_SAFE const char* runtime_library_name();
// Writes a note into the raw file when io_lock comes free within 50 ms:
// for exec, which programs call from signal handlers and vfork children
// (a vfork child writes into the file it shares with its parent).
ANDWEORC_SIGNAL_SAFE void runtime_write_note_bounded(const char* text);
// raw::SamplerKind chosen for this process.
ANDWEORC_SIGNAL_SAFE uint32_t sampler_kind();
// True between successful start-up and shutdown.
ANDWEORC_SIGNAL_SAFE bool runtime_active();
// The process's delay engine (experiments); see delay_engine.h.
ANDWEORC_SIGNAL_SAFE DelayEngine& delay_engine();
// Serializes every consumer of rings and every write to the raw file.
SpinLock& io_lock();

// Starts sampling for a thread (picks perf or timer). Not signal-safe.
void start_thread_sampler(struct ThreadState* s);
// Owning thread only.
void stop_thread_sampler(struct ThreadState* s);
// Any thread: stops new samples, leaves mappings for the owner's handler.
void disable_thread_sampler(struct ThreadState* s);

// Normal shutdown: stop sampling, drain, write totals, maps and the end
// record, close the file. Idempotent; not signal-safe.
void runtime_shutdown();
// _exit/_Exit (possibly from a signal handler): no joins, no waiting; the
// end record is written if io_lock can be had within a bounded time.
ANDWEORC_SIGNAL_SAFE void runtime_shutdown_now();
// Best effort from a fatal signal handler: drain and write what we have if
// io_lock is free. Writes no end record.
ANDWEORC_SIGNAL_SAFE void runtime_emergency_flush();

// Writes a maps snapshot when a library was loaded or unloaded since the
// last call (dlopen after start-up: its samples must be attributable even
// if the process is then killed). Collector thread only; takes io_lock;
// not signal-safe (dl_iterate_phdr). True when it wrote one.
bool raw_write_maps_if_changed();
// Start-up: the objects the first maps snapshot holds.
void remember_loaded_objects();

// A thread the pool had no slot for (more than kMaxThreads at once): it is
// neither sampled nor delayed; the count goes into the profile as a note.
void note_unprofiled_thread();

// Writes a raw::TreeRecord (experiments this process took part in). Caller
// holds io_lock.
ANDWEORC_SIGNAL_SAFE void write_tree_record();

// Process lifecycle hooks used by the interposed functions.
void runtime_before_exec();
// dlclose: writes a maps snapshot (the library may be unmapped next). Not
// signal-safe (takes io_lock; dlclose is not signal-safe either).
void runtime_before_dlclose();
ANDWEORC_SIGNAL_SAFE bool is_original_process();  // false in a vfork child

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_RUNTIME_H_
