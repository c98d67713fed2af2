// coz_writer.cc: Coz's profile.coz records from a Profile.
#include "report/coz_writer.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <sstream>

#include "profile/attribution.h"

namespace andweorc::report {
namespace {

using profile::PointKind;

// The format separates fields with tabs and records with newlines.
std::string clean(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string location(const std::string& file, int line) {
  return fmt::format("{}:{}", file.empty() ? "?" : clean(file), line);
}

uint64_t nanoseconds(double s) {
  if (!std::isfinite(s) || s <= 0) return 0;
  return static_cast<uint64_t>(std::llround(s * 1e9));
}

// "2024-05-01T12:00:00Z" -> Unix time in ns; 0 when it does not parse.
uint64_t start_ns(const std::string& iso) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year,
                  &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
                  &consumed) != 6 ||
      consumed != static_cast<int>(iso.size())) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  return t < 0 ? 0 : static_cast<uint64_t>(t) * 1000000000ull;
}

void write_experiment(const profile::Experiment& e, std::ostream& out) {
  // Coz prints the speed-up as a fraction with two decimals.
  out << fmt::format(
      "experiment\tselected={}\tspeedup={:.2f}\tduration={}"
      "\tselected-samples={}\n",
      location(e.file, e.line), e.speedup_pct / 100.0,
      nanoseconds(e.virtual_duration_s()), e.selected_samples);
  // Coz logs every throughput point, then every latency point.
  for (const profile::PointDelta& d : e.points) {
    if (d.kind != PointKind::kThroughput) continue;
    out << fmt::format("throughput-point\tname={}\tdelta={}\n", clean(d.name),
                       d.visits);
  }
  for (const profile::PointDelta& d : e.points) {
    if (d.kind != PointKind::kLatency) continue;
    // Coz's counter is unsigned; a negative count cannot be in flight.
    int64_t in_flight = d.in_flight_end < 0 ? 0 : d.in_flight_end;
    out << fmt::format(
        "latency-point\tname={}\tarrivals={}\tdepartures={}\tdifference={}\n",
        clean(d.name), d.arrivals, d.departures, in_flight);
  }
}

}  // namespace

void write_coz(const profile::Profile& p, std::ostream& out) {
  out << "startup\ttime=" << start_ns(p.run.start_time) << "\n";
  for (const profile::Experiment& e : p.experiments) {
    if (e.virtual_duration_s() > 0) write_experiment(e, out);
  }
  out << "runtime\ttime=" << nanoseconds(p.run.duration_s) << "\n";
  for (const profile::LineCount& l : profile::attribute(p).lines) {
    if (l.file.empty() || l.line <= 0 || l.samples == 0) continue;
    out << "samples\tlocation=" << location(l.file, l.line)
        << "\tcount=" << l.samples << "\n";
  }
}

bool append_coz_file(const profile::Profile& p, const std::string& path,
                     std::string* error) {
  auto fail = [&](int err) {
    if (error) {
      *error = fmt::format("cannot write {}: {}", path, std::strerror(err));
    }
    return false;
  };
  std::ostringstream text;
  write_coz(p, text);
  const std::string s = text.str();
  int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return fail(errno);
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return fail(err);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return fail(errno);
  return true;
}

}  // namespace andweorc::report
