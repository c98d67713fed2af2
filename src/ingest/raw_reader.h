// raw_reader.h: parses the runtime's raw files (src/runtime/raw_format.h).
//
// Tolerant by design: a process that crashed or was killed leaves a
// truncated last record, which ends the file without an error; everything
// before it is kept. Only an unreadable file or a wrong magic/version is an
// error.
#ifndef ANDWEORC_INGEST_RAW_READER_H_
#define ANDWEORC_INGEST_RAW_READER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace andweorc::ingest {

struct RawSample {
  uint32_t tid = 0;
  uint64_t time_ns = 0;
  uint32_t weight = 1;
  bool from_timer = false;
  std::vector<uint64_t> frames;  // [0] = IP, then return addresses
};

struct RawPoint {
  uint32_t kind = 0;  // ANDWEORC_KIND_*
  std::string name;
  uint64_t value = 0;
};

struct RawExperimentPoint {
  std::string name;
  bool latency = false;
  uint64_t delta = 0;  // visits (throughput) or arrivals (latency)
  uint64_t departures = 0;
  int64_t in_flight_start = 0, in_flight_end = 0;
};

struct RawExperiment {
  uint64_t start_ns = 0, duration_ns = 0, delay_ns = 0, selected_samples = 0;
  int speedup_pct = 0;
  bool function_granularity = false;
  std::string file;
  int line = 0;
  std::string function;
  std::vector<RawExperimentPoint> points;
  struct Parent {
    std::string function, file;
  };
  std::vector<Parent> parents;  // coarse to fine: the line's functions
};

// A label bound to a trampoline (raw::LabelBindingRecord).
struct RawLabelBinding {
  uint64_t time_ns = 0;
  uint64_t start = 0, end = 0;              // the trampoline's code
  uint64_t table_start = 0, table_end = 0;  // all label machinery
  uint32_t trampoline = 0;
  std::string key, value;
};

// One maps snapshot and when it was taken (raw::MapsTimeRecord; 0 when the
// writer did not say). A sample is symbolized with the first snapshot at or
// after its time (profile_builder.cc).
struct RawMapsSnapshot {
  uint64_t time_ns = 0;
  std::string text;
};

// --trace (raw_format.h kTrace*): a traced function and one of its calls.
struct RawTraceFunction {
  uint32_t id = 0;
  std::string name;
  bool enabled = false;  // the runtime patched its entry and every exit
};
struct RawTraceCall {
  uint32_t tid = 0;
  uint32_t function = 0;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t depth = 0;  // traced calls of the thread it ran inside
};
struct RawTraceStats {
  uint64_t ring_full = 0, no_return = 0, too_deep = 0, reentered = 0;
};

struct RawProcess {
  std::string path;  // the raw file
  int pid = 0;
  int ppid = 0;
  std::string executable;
  uint32_t sampler = 0;  // raw::SamplerKind
  uint64_t period_ns = 0;
  uint64_t start_monotonic_ns = 0;
  uint64_t start_realtime_ns = 0;
  uint64_t end_ns = 0;
  bool clean_exit = false;  // saw an end record
  bool truncated = false;   // the last record was cut short
  std::string maps;         // the last maps snapshot
  // Every snapshot in file (= time) order; one that repeats the previous
  // text only moves that one's time forward.
  std::vector<RawMapsSnapshot> maps_history;
  std::vector<RawSample> samples;
  // read_raw_dir leaves `samples` empty and the samples in the file: bytes
  // [header, samples_end) of `path` (what this read parsed, even if the
  // file grew since), streamed by for_each_sample. A long run has more
  // samples than the tool should hold (issue 11).
  bool samples_in_file = false;
  uint64_t samples_end = 0;
  std::vector<RawPoint> points;  // the last snapshot
  std::vector<std::string> notes;
  uint64_t lost_samples = 0;
  std::vector<uint32_t> threads;  // tids seen starting
  std::vector<RawExperiment> experiments;
  std::vector<RawLabelBinding> label_bindings;  // in file order
  // The last kTree record: experiments it took part in (-1: no record, a
  // runtime from before issue 15), and raw::kTree* flags.
  int tree_experiments = -1;
  uint32_t tree_flags = 0;
  // The kCost record (has_cost false: none, a runtime from before it or a
  // process that did not shut the profiler down): CPU time of the whole
  // process and of the profiler's own threads in it.
  bool has_cost = false;
  uint64_t process_cpu_ns = 0;
  uint64_t runtime_cpu_ns = 0;
  std::vector<RawTraceFunction> trace_functions;
  std::vector<RawTraceCall> trace_calls;  // in order of their end
  RawTraceStats trace_stats;
};

// Decodes a kTraceNames, kTraceCalls or kTraceStats record's payload
// [pos, end) into `out` (trace_records.cc); a short record is skipped.
void decode_trace_record(uint32_t type, const std::string& buf, size_t pos,
                         size_t end, RawProcess* out);

// Appends the samples of one kSamples record, buf[pos, end), to *out; a
// corrupt batch ends early, keeping the samples before it.
void decode_samples(const std::string& buf, size_t pos, size_t end,
                    std::vector<RawSample>* out);

// Decodes the payload of one kPoints record, buf[pos, end), into *out (left
// as it was for a torn record, which returns false).
bool decode_points(const std::string& buf, size_t pos, size_t end,
                   std::vector<RawPoint>* out);

// Decodes the payload of one kLabelBinding record, buf[pos, end); false
// for a torn record or one that is not a code range.
bool decode_label_binding(const std::string& buf, size_t pos, size_t end,
                          RawLabelBinding* out);

// Decodes the payload of one kExperiment record, buf[pos, end). Returns
// false for a torn record or a speed-up outside 0..100.
bool decode_experiment(const std::string& buf, size_t pos, size_t end,
                       RawExperiment* out);

// Calls fn for every sample of `p` in file order: from p.samples, or, when
// p.samples_in_file, read again from p.path one record at a time (memory:
// one record, whatever the run's length). False, with a one-line *error,
// when the file cannot be read again (removed, or replaced by another);
// the samples before the failure were passed to fn.
bool for_each_sample(const RawProcess& p,
                     const std::function<void(const RawSample&)>& fn,
                     std::string* error);

// Reads one raw file, samples included. On failure returns false and sets
// *error to one line.
bool read_raw_file(const std::string& path, RawProcess* out,
                   std::string* error);

// The same for the bytes of a raw file already in memory (the Runner reads
// its own process's records); `path` names it in messages.
bool parse_raw_bytes(const std::string& bytes, const std::string& path,
                     RawProcess* out, std::string* error);

// Reads every *.awr file in `dir`, ordered by name, leaving the samples in
// the files (samples_in_file): the files must stay until for_each_sample.
bool read_raw_dir(const std::string& dir, std::vector<RawProcess>* out,
                  std::string* error);

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_RAW_READER_H_
