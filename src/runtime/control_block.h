// control_block.h: the live controls' channel from the tool to the
// coordinator (docs/live.md "Controls"): one fixed-layout page in a file
// both map MAP_SHARED. Version 2 added the probe half (a dynamic probe to add
// or remove, docs/live.md "Probes from the page"), version 3 the sample
// period (a multiple of the run's, runtime/sample_period.h); a reader of
// another version refuses the whole file.
//
// One writer per side, no locks. The tool alone writes the command half as
// a sequence lock: `seq` odd while it writes, then the next even value; the
// coordinator copies the command and takes it only if `seq` was even and
// unchanged around the copy (a torn copy is retried at the next look). The
// coordinator alone writes the acknowledgement half the same way (`ack_gen`).
// The probe half (`probe_seq`/`probe`, `probe_ack_gen`/`probe_ack`) works
// the same way, but a probe command is a change, not a whole state: the
// tool sends the next one only once the previous one is acknowledged.
// Header-only: the tool (src/live) and the coordinator (src/coordinator)
// include it; nothing here runs in a signal handler.
#ifndef ANDWEORC_RUNTIME_CONTROL_BLOCK_H_
#define ANDWEORC_RUNTIME_CONTROL_BLOCK_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace andweorc::runtime {

constexpr uint32_t kControlMagic = 0x54435741;  // "AWCT", little-endian
constexpr uint32_t kControlVersion = 3;
constexpr size_t kControlTargetSize = 256;
constexpr size_t kControlTextSize = 256;
// A probe's resolved sites: ANDWEORC_PROBES lines (probes/probe_spec.h).
constexpr size_t kControlProbeTextSize = 2304;
// The sample period's multiple (runtime/sample_period.h kMaxPeriodMultiple).
constexpr uint32_t kMaxControlPeriodMultiple = 64;

enum class PinKind : uint32_t { kNone = 0, kLine = 1, kFunction = 2 };

// What the tool asks for: the whole desired state, not a delta, so a
// coordinator that missed a command still ends in the right state.
struct ControlCommand {
  uint64_t seq = 0;  // even, > 0: which command this is
  uint32_t paused = 0;
  PinKind pin = PinKind::kNone;
  int32_t pin_line = 0;                      // kLine: the line number
  char pin_target[kControlTargetSize] = {};  // file suffix or function name
  // Version 3: sample every `period_multiple` x the run's period (1: as
  // the run started; 1..64).
  uint32_t period_multiple = 1;
  uint32_t reserved = 0;
};

// What the coordinator last applied: its whole state after the command.
struct ControlAck {
  uint64_t seq = 0;          // the command applied (0: none yet)
  int32_t status = 0;        // 0 applied; 1 the pin names no in-scope code
  int32_t pid = 0;           // the coordinator's process
  uint64_t time_ns = 0;      // CLOCK_MONOTONIC when applied
  uint64_t experiments = 0;  // experiments this coordinator recorded by then
  uint32_t paused = 0;
  PinKind pin = PinKind::kNone;          // the pin in force (an unknown one is
                                         // refused and the previous one kept)
  char pin_text[kControlTextSize] = {};  // e.g. "pipeline.cc:45 (1 line)"
  char error[kControlTextSize] = {};     // status 1: why
  uint32_t period_multiple = 1;          // version 3: the period in force
  uint32_t reserved = 0;
};

enum class ProbeAction : uint32_t { kNone = 0, kAdd = 1, kRemove = 2 };

// A dynamic probe to add (its sites, resolved and planned by the tool) or
// to remove (by the id its add had).
struct ProbeCommand {
  uint64_t seq = 0;  // even, > 0
  ProbeAction action = ProbeAction::kNone;
  uint32_t id = 0;                         // the tool's number for the probe
  char lines[kControlProbeTextSize] = {};  // kAdd: ANDWEORC_PROBES lines
};

// What the coordinator did with the last probe command.
struct ProbeAck {
  uint64_t seq = 0;    // the command (0: none yet)
  int32_t status = 0;  // 0 applied; 1 refused (error says why)
  uint32_t id = 0;     // the probe
  int32_t pid = 0;     // the process that applied it
  int32_t slot = 0;    // kAdd: the progress point's slot
  uint32_t sites = 0;  // addresses patched (add) or restored (remove)
  uint32_t reserved = 0;
  uint64_t time_ns = 0;  // CLOCK_MONOTONIC when applied
  char error[kControlTextSize] = {};
};

enum class ControlRead { kNothing, kCommand, kTorn, kBadHeader };

struct ControlBlock {
  uint32_t magic;
  uint32_t version;
  uint32_t size;  // sizeof(ControlBlock) of the writer
  uint32_t reserved;
  uint64_t seq;  // the command's sequence lock
  ControlCommand command;
  uint64_t ack_gen;  // the acknowledgement's sequence lock
  ControlAck ack;
  // Version 2: the probe half.
  uint64_t probe_seq;  // the probe command's sequence lock
  ProbeCommand probe;
  uint64_t probe_ack_gen;  // its acknowledgement's
  ProbeAck probe_ack;
};
static_assert(sizeof(ControlBlock) <= 4096, "one page");

// The file's size: one page, so later versions may grow inside it.
constexpr size_t kControlFileSize = 4096;

inline void control_init(ControlBlock* b) {
  std::memset(static_cast<void*>(b), 0, sizeof *b);
  b->size = sizeof *b;
  b->version = kControlVersion;
  // The magic last: a reader that sees it sees a whole header.
  __atomic_store_n(&b->magic, kControlMagic, __ATOMIC_RELEASE);
}

inline bool control_header_ok(const ControlBlock* b) {
  return __atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) == kControlMagic &&
         b->version == kControlVersion && b->size == sizeof *b;
}

// Copies `from`'s fields under a sequence lock `*lock`: odd while writing.
template <typename T>
inline void seqlock_write(uint64_t* lock, T* to, const T& from) {
  uint64_t v = __atomic_load_n(lock, __ATOMIC_RELAXED);
  __atomic_store_n(lock, v + 1, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  std::memcpy(static_cast<void*>(to), &from, sizeof from);
  __atomic_store_n(lock, v + 2, __ATOMIC_RELEASE);
}

template <typename T>
inline bool seqlock_read(const uint64_t* lock, const T* from, T* to) {
  uint64_t before = __atomic_load_n(lock, __ATOMIC_ACQUIRE);
  if (before & 1) return false;
  std::memcpy(static_cast<void*>(to), from, sizeof *to);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(lock, __ATOMIC_RELAXED) == before;
}

// The tool: publishes `c` (its seq is set here). Returns the seq.
inline uint64_t control_send(ControlBlock* b, ControlCommand c) {
  c.seq = __atomic_load_n(&b->seq, __ATOMIC_RELAXED) + 2;
  c.pin_target[kControlTargetSize - 1] = '\0';
  seqlock_write(&b->seq, &b->command, c);
  return c.seq;
}

// The tool: publishes a probe command (its seq is set here). Returns the seq.
inline uint64_t control_send_probe(ControlBlock* b, const ProbeCommand& c) {
  ProbeCommand copy = c;
  copy.seq = __atomic_load_n(&b->probe_seq, __ATOMIC_RELAXED) + 2;
  copy.lines[kControlProbeTextSize - 1] = '\0';
  seqlock_write(&b->probe_seq, &b->probe, copy);
  return copy.seq;
}

// The coordinator: the current probe command when its seq is not `seen`.
inline ControlRead control_read_probe(const ControlBlock* b, uint64_t seen,
                                      ProbeCommand* out) {
  if (!control_header_ok(b)) return ControlRead::kBadHeader;
  if (__atomic_load_n(&b->probe_seq, __ATOMIC_ACQUIRE) == seen)
    return ControlRead::kNothing;
  if (!seqlock_read(&b->probe_seq, &b->probe, out)) return ControlRead::kTorn;
  if (out->seq == seen) return ControlRead::kNothing;
  out->lines[kControlProbeTextSize - 1] = '\0';
  return ControlRead::kCommand;
}

inline void control_acknowledge_probe(ControlBlock* b, ProbeAck a) {
  a.error[kControlTextSize - 1] = '\0';
  seqlock_write(&b->probe_ack_gen, &b->probe_ack, a);
}

// The tool: the last probe acknowledgement; false when torn.
inline bool control_read_probe_ack(const ControlBlock* b, ProbeAck* out) {
  if (!seqlock_read(&b->probe_ack_gen, &b->probe_ack, out)) return false;
  out->error[kControlTextSize - 1] = '\0';
  return true;
}

// The coordinator: the current command when its seq is not `seen`.
inline ControlRead control_read(const ControlBlock* b, uint64_t seen,
                                ControlCommand* out) {
  if (!control_header_ok(b)) return ControlRead::kBadHeader;
  if (__atomic_load_n(&b->seq, __ATOMIC_ACQUIRE) == seen)
    return ControlRead::kNothing;
  if (!seqlock_read(&b->seq, &b->command, out)) return ControlRead::kTorn;
  if (out->seq == seen) return ControlRead::kNothing;
  out->pin_target[kControlTargetSize - 1] = '\0';
  return ControlRead::kCommand;
}

inline void control_acknowledge(ControlBlock* b, ControlAck a) {
  a.pin_text[kControlTextSize - 1] = '\0';
  a.error[kControlTextSize - 1] = '\0';
  seqlock_write(&b->ack_gen, &b->ack, a);
}

// The tool: the last acknowledgement; false when torn (look again).
inline bool control_read_ack(const ControlBlock* b, ControlAck* out) {
  if (!seqlock_read(&b->ack_gen, &b->ack, out)) return false;
  out->pin_text[kControlTextSize - 1] = '\0';
  out->error[kControlTextSize - 1] = '\0';
  return true;
}

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_CONTROL_BLOCK_H_
