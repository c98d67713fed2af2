// experiment_tail.h: follows the experiments a running program records.
//
// The runtime's collector appends records to raw files every 20 ms while the
// program runs. `andweorc run` shows progress from them without waiting for
// the end: poll() reads only the bytes added since the last call and returns
// the experiments among them. A record still being written (the file ends
// inside it) is left for the next poll. It also keeps each process's last
// snapshot of its progress-point totals (written every 0.5 s), for live
// rates (src/live).
#ifndef ANDWEORC_INGEST_EXPERIMENT_TAIL_H_
#define ANDWEORC_INGEST_EXPERIMENT_TAIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ingest/raw_reader.h"
#include "profile/profile.h"

namespace andweorc::ingest {

class ExperimentTail {
 public:
  explicit ExperimentTail(std::string dir) : dir_(std::move(dir)) {}

  // Experiments completed since the previous call, from every raw file in
  // the directory (new files included). Unreadable or foreign files are
  // skipped: progress is best effort, the final read reports errors.
  std::vector<profile::Experiment> poll();

  // The progress-point totals as of the last poll: each process's last
  // snapshot, summed over processes by (kind, name), sorted by name.
  std::vector<RawPoint> point_totals() const;

 private:
  struct FileState {
    uint64_t offset = 0;  // next unread record; 0 = header not read yet
    bool ignored = false;
    int pid = 0;
    std::vector<RawPoint> points;  // the last snapshot
  };
  void read_new(const std::string& path, FileState* state,
                std::vector<profile::Experiment>* out);

  std::string dir_;
  std::map<std::string, FileState> files_;
};

}  // namespace andweorc::ingest

#endif  // ANDWEORC_INGEST_EXPERIMENT_TAIL_H_
