// run_ingest.cc: a finished run as a profile (run_ingest.h).
#include "cli/run_ingest.h"

#include <ctime>
#include <iostream>

#include "cli/terminal.h"
#include "experiments/convergence_summary.h"
#include "ingest/profile_builder.h"
#include "profile/profile_json.h"
#include "report/coz_writer.h"
#include "report/text_report.h"

#ifndef ANDWEORC_VERSION
#define ANDWEORC_VERSION "unknown"
#endif

namespace andweorc::cli {
namespace {

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

profile::Profile profile_of_run(const RunOptions& o,
                                const RunSettings& settings,
                                const RunRecord& run,
                                const std::vector<ingest::RawProcess>& raw) {
  const ChildResult& child = run.child;
  profile::Profile prof;
  prof.run.command = run.command;
  prof.run.start_time = iso8601_utc(run.start_wall);
  prof.run.duration_s = run.seconds;
  prof.run.exit_status = child.exit_status;
  prof.run.exit_signal = child.signal;
  prof.run.sample_period_ns = settings.period_ns;
  prof.run.tool_version = ANDWEORC_VERSION;
  prof.run.sampler = "none";
  for (const auto& p : raw) {
    if (p.sampler == 1) prof.run.sampler = "perf";
    if (p.sampler == 2 && prof.run.sampler == "none")
      prof.run.sampler = "timer";
  }
  if (!settings.sampler_note.empty())
    prof.warnings.push_back(settings.sampler_note);
  prof.settings.enabled = !o.no_experiments;
  prof.settings.fixed_line = o.fixed_line;
  prof.settings.fixed_speedup = o.fixed_speedup;
  prof.settings.end_to_end = o.end_to_end;
  prof.settings.experiment_time_s = double(settings.experiment_ns) / 1e9;
  prof.settings.seed = o.seed;
  // auto: each experiment records its granularity; the finest is "line".
  // adaptive: "line", and coarse to fine if it chose functions first.
  prof.settings.coarse_to_fine = o.granularity == "auto";
  prof.settings.granularity = o.granularity == "function" ? "function" : "line";
  symbols::Symbolizer symbolizer;
  ingest::build_profile(raw, {o.binary_scope, o.source_scope, o.split_points},
                        symbolizer, &prof);
  if (o.granularity == "adaptive")
    for (const auto& e : prof.experiments)
      if (e.granularity == "function") prof.settings.coarse_to_fine = true;
  if (!o.no_experiments && !o.end_to_end)
    prof.convergence = experiments::convergence_of(prof.experiments);
  if (child.descendants_left > 0)
    prof.warnings.push_back(
        std::to_string(child.descendants_left) +
        " process(es) started by the program were still running after the "
        "wait for them (ANDWEORC_DESCENDANT_WAIT_S, default 10 s); the "
        "profile holds their data up to then and their raw files stay in " +
        run.data_dir);

  return prof;
}

void accumulate_end_to_end(const std::string& path, profile::Profile* prof) {
  profile::ReadResult previous = profile::read_profile(path);
  if (!previous.ok() || !previous.profile->settings.end_to_end ||
      previous.profile->run.command != prof->run.command)
    return;
  auto& old = previous.profile->experiments;
  prof->experiments.insert(prof->experiments.begin(), old.begin(), old.end());
}

bool write_run_profile(const RunOptions& o, const RunSettings& settings,
                       const profile::Profile& prof, std::string* error) {
  return settings.format == "coz"
             ? report::append_coz_file(prof, o.output, error)
             : profile::write_profile(prof, o.output, error);
}

void print_run_summary(const RunOptions& o, const profile::Profile& prof) {
  if (o.quiet) return;
  report::TextOptions options;
  options.top = o.top;
  options.color = use_color(2);
  report::write_text(prof, std::cerr, options);
  std::cerr << "Profile written to " << o.output << "\n";
}

}  // namespace andweorc::cli
