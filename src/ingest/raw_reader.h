// raw_reader.h: parses the runtime's raw files (src/runtime/raw_format.h).
//
// Tolerant by design: a process that crashed or was killed leaves a
// truncated last record, which ends the file without an error; everything
// before it is kept. Only an unreadable file or a wrong magic/version is an
// error.
#ifndef ANDWEORC_INGEST_RAW_READER_H_
#define ANDWEORC_INGEST_RAW_READER_H_

#include <cstdint>
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
  std::vector<RawSample> samples;
  std::vector<RawPoint> points;  // the last snapshot
  std::vector<std::string> notes;
  uint64_t lost_samples = 0;
  std::vector<uint32_t> threads;  // tids seen starting
  std::vector<RawExperiment> experiments;
};

// Reads one raw file. On failure returns false and sets *error to one line.
bool read_raw_file(const std::string& path, RawProcess* out,
                   std::string* error);

// Parses the contents of a raw file; `path` names it in messages and in
// RawProcess::path.
bool parse_raw_buffer(const std::string& buf, const std::string& path,
                      RawProcess* out, std::string* error);

// Reads every *.awr file in `dir`, ordered by name.
bool read_raw_dir(const std::string& dir, std::vector<RawProcess>* out,
                  std::string* error);

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_RAW_READER_H_
