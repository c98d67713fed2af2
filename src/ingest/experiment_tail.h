// experiment_tail.h: follows the experiments a running program records.
//
// The runtime's collector appends records to raw files every 20 ms while the
// program runs. `andweorc run` shows progress from them without waiting for
// the end: poll() reads only the bytes added since the last call and returns
// the experiments among them. A record still being written (the file ends
// inside it) is left for the next poll. It also keeps each process's last
// snapshot of its progress-point totals (written every 0.5 s), for live
// rates (src/live).
//
// Each experiment gets its cpu_s (experiment_cpu.h) from the samples of its
// window. The collector writes a thread's samples up to 20 ms after they
// were taken, often after the experiment's own record, so an experiment is
// held back until samples from at least kSampleLagNs past its end have been
// read, its process has ended, or it has waited one poll (a program that
// stopped using CPU sends no later samples); a process without a sampler
// releases its experiments at once with cpu_s unknown.
#ifndef ANDWEORC_INGEST_EXPERIMENT_TAIL_H_
#define ANDWEORC_INGEST_EXPERIMENT_TAIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ingest/experiment_cpu.h"
#include "ingest/raw_reader.h"
#include "profile/profile.h"

namespace andweorc::ingest {

class ExperimentTail {
 public:
  static constexpr uint64_t kSampleLagNs = 30000000;  // 1.5 collector passes
  // Sample times kept at most this far back (an experiment longer than
  // that, e.g. an end-to-end one, gets cpu_s unknown here; the final
  // profile has all samples).
  static constexpr uint64_t kSampleHorizonNs = 60000000000;

  explicit ExperimentTail(std::string dir) : dir_(std::move(dir)) {}

  // Experiments completed since the previous call, from every raw file in
  // the directory (new files included). Unreadable or foreign files are
  // skipped: progress is best effort, the final read reports errors.
  std::vector<profile::Experiment> poll();

  // The progress-point totals as of the last poll: each process's last
  // snapshot, summed over processes by (kind, name), sorted by name.
  std::vector<RawPoint> point_totals() const;

  // Threads seen starting so far, summed over processes (what a profile's
  // `threads` will say; the analysis' plausibility bound uses it).
  uint64_t threads() const;

  // With keep_samples(true), poll() also keeps the samples it reads until
  // take_samples() (the live sampling profile; off for the progress line).
  void keep_samples(bool on) { keep_samples_ = on; }
  struct ProcessSamples {
    int pid = 0;
    const std::string* maps = nullptr;  // its last maps snapshot; stays
                                        // valid while the tail lives
    // One label binding per trampoline table seen (the label machinery a
    // stack hides, LabelResolver::is_machinery); valid as `maps`.
    const std::vector<RawLabelBinding>* label_tables = nullptr;
    std::vector<RawSample> samples;
  };
  std::vector<ProcessSamples> take_samples();

 private:
  struct FileState {
    uint64_t offset = 0;  // next unread record; 0 = header not read yet
    bool ignored = false;
    int pid = 0;
    std::vector<RawPoint> points;               // the last snapshot
    uint64_t threads = 0;                       // thread-start records seen
    std::string maps;                           // the last maps snapshot
    std::vector<RawLabelBinding> label_tables;  // one per table (bounded)
    std::vector<RawSample> samples;  // kept since the last take_samples()
    uint64_t period_ns = 0;          // the process's sample period
    bool ended = false;              // its end record was read
    SampleTimeline timeline;         // sample times pending ones may need
    struct Pending {
      RawExperiment raw;
      bool waited = false;  // was already pending at an earlier poll
    };
    std::vector<Pending> pending;  // in record order
  };
  void read_new(const std::string& path, FileState* state);
  void release(FileState* state, std::vector<profile::Experiment>* out);

  std::string dir_;
  std::map<std::string, FileState> files_;
  bool keep_samples_ = false;
};

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_EXPERIMENT_TAIL_H_
