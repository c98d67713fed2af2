// run_options.cc: `andweorc run`'s options checked (run_options.h).
#include "cli/run_options.h"

#include <cstdlib>

#include "cli/duration.h"

namespace andweorc::cli {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<RunSettings> check_run_options(const RunOptions& o,
                                             std::string* error) {
  RunSettings s;
  std::optional<uint64_t> period = parse_duration_ns(o.sample_period);
  if (!period || *period < 100000 || *period > 1000000000) {
    *error = "--sample-period must be between 100us and 1s (e.g. 1ms), got '" +
             o.sample_period + "'";
    return std::nullopt;
  }
  s.period_ns = *period;
  std::optional<uint64_t> experiment_ns = parse_duration_ns(o.experiment_time);
  if (!experiment_ns || *experiment_ns < 1000000 ||
      *experiment_ns > 60000000000ull) {
    *error = "--experiment-time must be between 1ms and 60s, got '" +
             o.experiment_time + "'";
    return std::nullopt;
  }
  s.experiment_ns = *experiment_ns;
  if (!o.fixed_line.empty()) {
    size_t colon = o.fixed_line.rfind(':');
    if (colon == std::string::npos || colon == 0 ||
        std::atoi(o.fixed_line.c_str() + colon + 1) <= 0) {
      *error = "--fixed-line must be FILE:LINE, e.g. main.cc:42, got '" +
               o.fixed_line + "'";
      return std::nullopt;
    }
  }
  if (!o.max_time.empty()) {
    s.max_time_ns = parse_duration_ns(o.max_time);
    if (!s.max_time_ns || *s.max_time_ns < 100000000) {
      *error =
          "--max-time must be a duration of at least 100ms (e.g. 60s, 2m), "
          "got '" +
          o.max_time + "'";
      return std::nullopt;
    }
  }
  if (o.until_stable && (o.no_experiments || o.end_to_end)) {
    *error =
        "--until-stable needs causal experiments (not with --no-experiments "
        "or --end-to-end)";
    return std::nullopt;
  }
  if (o.detached && (o.live_tty || o.live_json == "-")) {
    *error = std::string(o.live_tty ? "--live-tty" : "--live-json -") +
             " needs the terminal, which --detached leaves at once; use "
             "--live-json FILE or --live (`andweorc status` shows its URL)";
    return std::nullopt;
  }
  s.format = o.format;
  if (s.format.empty()) s.format = ends_with(o.output, ".coz") ? "coz" : "json";
  return s;
}

}  // namespace andweorc::cli
