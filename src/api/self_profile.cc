// self_profile.cc: see self_profile.h.
#include "api/self_profile.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "ingest/profile_builder.h"
#include "ingest/raw_reader.h"
#include "runtime/progress_points.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "symbols/symbolizer.h"

#ifndef ANDWEORC_VERSION
#define ANDWEORC_VERSION "unknown"
#endif

namespace andweorc::api {
namespace {

std::vector<std::string> command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t pos = 0; pos < all.size();) {
    size_t end = all.find('\0', pos);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(pos, end - pos));
    pos = end + 1;
  }
  return args;
}

std::string iso8601_utc(uint64_t realtime_ns) {
  time_t t = time_t(realtime_ns / 1000000000u);
  tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

// Everything recorded so far, as complete records: the rings, the progress
// point totals and the maps are written first, and the length is taken
// under the same lock, so no record is cut in half.
bool read_own_records(std::string* bytes, std::string* error) {
  int fd = runtime::raw_fd();
  if (fd < 0) {
    *error = "the profiler's records are not open (profiling is off)";
    return false;
  }
  struct stat st {};
  runtime::io_lock().lock();
  runtime::raw_drain_all_rings();
  runtime::points_write_snapshot();
  runtime::raw_write_maps();
  int rc = fstat(fd, &st);
  runtime::io_lock().unlock();
  if (rc != 0) {
    *error = std::string("cannot read the profiler's records: ") +
             std::strerror(errno);
    return false;
  }
  bytes->resize(size_t(st.st_size));
  size_t done = 0;
  while (done < bytes->size()) {
    ssize_t n =
        pread(fd, bytes->data() + done, bytes->size() - done, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  bytes->resize(done);
  return true;
}

}  // namespace

bool self_profile(const SelfProfileOptions& options, profile::Profile* out,
                  std::string* error) {
  std::string bytes;
  if (!read_own_records(&bytes, error)) return false;
  ingest::RawProcess proc;
  if (!ingest::parse_raw_bytes(bytes, "the profiler's records", &proc, error))
    return false;
  // The process is alive and its records are whole: it has not "exited
  // uncleanly", it just has not exited.
  proc.clean_exit = true;
  proc.truncated = false;

  profile::Profile prof;
  prof.run.command = command_line();
  prof.run.start_time = iso8601_utc(proc.start_realtime_ns);
  prof.run.duration_s =
      double(runtime::monotonic_ns() - proc.start_monotonic_ns) / 1e9;
  prof.run.sample_period_ns = proc.period_ns;
  prof.run.tool_version = ANDWEORC_VERSION;
  prof.run.sampler = proc.sampler == 1   ? "perf"
                     : proc.sampler == 2 ? "timer"
                                         : "none";
  prof.settings.enabled = true;
  prof.settings.experiment_time_s = options.experiment_time_s;
  prof.settings.seed = options.seed;
  symbols::Symbolizer symbolizer;
  ingest::build_profile({proc},
                        {options.binary_scope, options.source_scope, ""},
                        symbolizer, &prof);
  prof.warnings.push_back(
      "profiled in-process by andweorc::Runner while the program was running");
  *out = std::move(prof);
  return true;
}

}  // namespace andweorc::api
