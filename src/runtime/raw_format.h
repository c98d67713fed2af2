// raw_format.h: the records the runtime writes and the tool reads back.
//
// This header is the contract between the in-process runtime (writer) and
// the `andweorc` tool (reader), like rr's shared trace header. It holds only
// plain structs and constants, so the async-signal-safe runtime can include it.
//
// File layout: FileHeader, then records. Each record is a RecordHeader
// followed by `size` payload bytes, padded to 8 bytes. A process that dies
// mid-write leaves a truncated last record; readers stop there and keep
// everything before it. Bump kRawVersion on any incompatible change.
#ifndef ANDWEORC_RUNTIME_RAW_FORMAT_H_
#define ANDWEORC_RUNTIME_RAW_FORMAT_H_

#include <stdint.h>

namespace andweorc::raw {

inline constexpr char kMagic[8] = {'A', 'N', 'D', 'W', 'R', 'A', 'W', '1'};
inline constexpr uint32_t kRawVersion = 1;
// Raw files are named `raw-<pid>-<seq>.awr` inside ANDWEORC_DATA_DIR.
inline constexpr const char* kRawSuffix = ".awr";

struct FileHeader {
  char magic[8];
  uint32_t version;
  uint32_t header_size;  // sizeof(FileHeader), for forward compatibility
};

enum RecordType : uint32_t {
  kProcess = 1,     // ProcessRecord + executable path (NUL-terminated)
  kMaps = 2,        // text of /proc/self/maps; the last one seen wins
  kSamples = 3,     // a run of SampleHeader + frames[nframes]
  kThread = 4,      // ThreadRecord
  kPoints = 5,      // PointsHeader + PointEntry...; a snapshot of totals
  kLost = 6,        // LostRecord: samples dropped since the previous one
  kNote = 7,        // UTF-8 text for the user (e.g. why the fallback is used)
  kEnd = 8,         // EndRecord: the process shut the profiler down cleanly
  kExperiment = 9,  // ExperimentHeader + file + function + ExperimentPoint...
  kLabelBinding = 10,  // LabelBindingRecord + key + value (labels.h)
  kMapsTime = 11,      // MapsTimeRecord: when the next kMaps was taken
  kTree = 12,          // TreeRecord: the process's part in experiments
  kCost = 13,          // CostRecord: the profiler's own CPU time, at the end
  // `andweorc run --trace FUNCTION` (trace_calls.h); readers that do not know
  // these skip them: no version bump.
  kTraceNames = 20,  // TraceName + name (padded to 8), one per traced function
  kTraceCalls = 21,  // TraceCall... : finished calls, in order of their end
  kTraceStats = 22,  // TraceStats: calls not recorded, at the end
};

struct RecordHeader {
  uint32_t type;
  uint32_t size;  // payload bytes, excluding padding
};

enum SamplerKind : uint32_t {
  kSamplerNone = 0,
  kSamplerPerf = 1,   // perf_event_open task-clock
  kSamplerTimer = 2,  // timer_create(CLOCK_THREAD_CPUTIME_ID) fallback
};

struct ProcessRecord {
  int32_t pid;
  int32_t ppid;
  uint64_t start_monotonic_ns;
  uint64_t start_realtime_ns;
  uint32_t sampler;  // SamplerKind
  uint32_t reserved;
  uint64_t period_ns;
};

// frames[0] is the sampled instruction pointer; frames[1..] are return
// addresses (the symbolizer subtracts 1 from those).
struct SampleHeader {
  uint32_t tid;
  uint16_t nframes;
  uint16_t flags;
  uint64_t time_ns;  // CLOCK_MONOTONIC
  uint32_t weight;   // periods this sample stands for (timer overruns + 1)
  uint32_t reserved;
};
inline constexpr uint16_t kSampleFromTimer = 1;  // frames from an FP walk
inline constexpr int kMaxFrames = 64;

enum ThreadEvent : uint32_t { kThreadStart = 1, kThreadExit = 2 };
struct ThreadRecord {
  uint32_t tid;
  uint32_t event;  // ThreadEvent
  uint64_t time_ns;
};

struct PointsHeader {
  uint32_t count;
  uint32_t reserved;
};
// Followed by name_len bytes of name (no NUL), padded to 8 bytes.
struct PointEntry {
  uint32_t kind;  // ANDWEORC_KIND_* from andweorc.h
  uint32_t name_len;
  uint64_t value;
};

// A finished causal experiment. Followed by file_len bytes of the selected
// line's file and function_len bytes of its function (each padded to 8),
// then npoints ExperimentPoint entries, each followed by its padded name,
// then (optional, coarse to fine) ExperimentParents and, per parent, an
// ExperimentParent followed by its padded function and file: the functions
// that hold the selected line, as the plan had them. Readers that do not
// know the trailer stop after the points: no version bump.
struct ExperimentHeader {
  uint64_t start_ns;
  uint64_t duration_ns;
  uint64_t delay_ns;  // delay inserted during it (global count increase)
  uint64_t selected_samples;
  uint32_t speedup_pct;
  uint32_t granularity;  // 0 line, 1 function
  uint32_t line;
  uint32_t npoints;
  uint32_t file_len;
  uint32_t function_len;
};
struct ExperimentPoint {
  uint32_t
      kind;  // ANDWEORC_KIND_THROUGHPUT, or ANDWEORC_KIND_BEGIN for latency
  uint32_t name_len;
  uint64_t delta;       // throughput: visits; latency: arrivals
  uint64_t departures;  // latency only
  int64_t in_flight_start;
  int64_t in_flight_end;
};
struct ExperimentParents {
  uint32_t count;
  uint32_t reserved;
};
struct ExperimentParent {
  uint32_t function_len;
  uint32_t file_len;
};

// From `time_ns` on, the trampoline whose code is [start, end) runs work of
// the label (key, value), until its next binding record. Followed by key_len
// bytes of key and value_len bytes of value, each padded to 8. A sample whose
// call chain holds an address in [start, end) carries that label. Addresses
// in [table_start, table_end) (every trampoline and their shared helper) are
// label machinery, not user code: reports hide them.
struct LabelBindingRecord {
  uint64_t time_ns;  // CLOCK_MONOTONIC, like SampleHeader::time_ns
  uint64_t start;    // trampoline code range in this process
  uint64_t end;
  uint64_t table_start;
  uint64_t table_end;
  uint32_t trampoline;  // index in the family; 0 is the shared overflow one
  uint32_t key_len;
  uint32_t value_len;
  uint32_t reserved;
};

// Written right before each kMaps record: CLOCK_MONOTONIC (like
// SampleHeader::time_ns) read before /proc/self/maps was, so every mapping
// that existed at any earlier time and was not unmapped since is in that
// snapshot. The runtime writes a snapshot before each dlclose (the only way
// it sees a library go), so a sample belongs with the first snapshot at or
// after its time (issue 12 item 9: a library unloaded and another loaded at
// the same address). Readers that do not know this record skip it and use
// the last snapshot, as before: no version bump.
struct MapsTimeRecord {
  uint64_t time_ns;
};

// How many experiments the process took part in so far (its threads could
// hit the selection and paid the delays): experiments that began while it
// ran, plus the one running when it started. Written with every points
// snapshot (0.5 s) and at the end, the last one wins: a process killed
// meanwhile keeps a count up to its last snapshot. Readers that do not know
// this record skip it: no version bump.
struct TreeRecord {
  uint32_t experiments;
  uint32_t flags;  // kTree* below
};
inline constexpr uint32_t kTreeMember = 1;         // shares a process tree
inline constexpr uint32_t kTreePointsFull = 2;     // tree's point table full
inline constexpr uint32_t kTreeProcessesFull = 4;  // tree's slots all taken

// A traced function (--trace): `function` is the id TraceCall uses;
// `enabled` 0 when the runtime could not patch its entry and every exit
// (then no call of it is recorded). Followed by name_len bytes of name.
struct TraceName {
  uint32_t function;
  uint32_t enabled;
  uint32_t name_len;
  uint32_t reserved;
};
// One call of a traced function in thread `tid`: entry and return, in the
// clock of SampleHeader::time_ns (CLOCK_MONOTONIC); `depth` is the number of
// traced calls of the thread it ran inside (0 = outermost).
struct TraceCall {
  uint32_t tid;
  uint32_t function;
  uint64_t start_ns;
  uint64_t end_ns;
  uint32_t depth;
  uint32_t reserved;
};
// Calls the runtime saw but could not record (process totals).
struct TraceStats {
  uint64_t ring_full;  // finished while the ring was full (overflow)
  uint64_t no_return;  // left by an exception or longjmp, never returned
  uint64_t too_deep;   // nested deeper than the per-thread stack
  uint64_t reentered;  // entered from a signal handler inside the recorder
};

struct LostRecord {
  uint64_t samples;
};

struct EndRecord {
  uint64_t time_ns;
};

// CPU time since the process started, written with the final records: the
// whole process's, and that of the profiler's own threads within it (the
// collector, the coordinator and their helpers). What the profiler costs
// inside the program's threads (sample handlers, wrappers, inserted delays)
// is in process_cpu_ns only.
struct CostRecord {
  uint64_t process_cpu_ns;
  uint64_t runtime_cpu_ns;
};

inline constexpr uint32_t padded8(uint32_t n) { return (n + 7u) & ~7u; }

}  // namespace andweorc::raw

#endif  // ANDWEORC_RUNTIME_RAW_FORMAT_H_
