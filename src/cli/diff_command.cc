// diff_command.cc: `andweorc diff BASE NEW` compares two profiles;
// `andweorc diff A1 A2 ... -- B1 B2 ...` compares two sets of runs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "compare/diff_writers.h"
#include "compare/fail_on.h"
#include "compare/profile_diff.h"
#include "profile/atomic_file.h"
#include "profile/merge.h"
#include "profile/profile_loader.h"

namespace andweorc::cli {
namespace {

struct DiffOptions {
  // BASE NEW, or BASE's runs, kDiffSeparator (the `--`), NEW's runs.
  std::vector<std::string> profiles;
  std::string format = "text";
  std::string output;
  std::vector<std::string> fail_on;
  std::string base_source_map, new_source_map;
  size_t top = 10;
};

// One side's runs, loaded, and their merge (the run itself when alone).
struct Side {
  std::vector<profile::Profile> runs;
  std::optional<profile::Profile> merged;
  std::vector<const profile::Profile*> pointers() const {
    std::vector<const profile::Profile*> out;
    for (const profile::Profile& p : runs) out.push_back(&p);
    return out;
  }
  const profile::Profile& combined() const {
    return merged ? *merged : runs.front();
  }
};

bool load_side(const std::vector<std::string>& files, Side* side) {
  for (const std::string& f : files) {
    profile::ReadResult r = profile::load_profile(f);
    if (!r.ok()) {
      std::cerr << "andweorc: " << r.error << "\n";
      return false;
    }
    side->runs.push_back(std::move(*r.profile));
  }
  if (side->runs.size() > 1) {
    std::vector<profile::MergeInput> inputs;
    for (size_t i = 0; i < files.size(); ++i) {
      inputs.push_back({files[i], &side->runs[i]});
    }
    profile::MergeResult m = profile::merge_profiles(inputs);
    if (!m.ok()) {
      std::cerr << "andweorc: " << m.error << "\n";
      return false;
    }
    side->merged = std::move(*m.profile);
  }
  return true;
}

std::string joined(const std::vector<std::string>& files) {
  std::string s;
  for (const std::string& f : files) s += (s.empty() ? "" : " + ") + f;
  return s;
}

int run_diff(const DiffOptions& o) {
  std::string error;
  auto rules = compare::parse_fail_rules(o.fail_on, &error);
  if (!rules) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  std::vector<std::string> base_files, new_files;
  auto sep = std::find(o.profiles.begin(), o.profiles.end(),
                       std::string(kDiffSeparator));
  if (sep == o.profiles.end()) {
    if (o.profiles.size() != 2) {
      std::cerr << "andweorc: diff needs BASE and NEW, or several runs per "
                   "side: diff A1 A2 ... -- B1 B2 ...\n";
      return kExitUsage;
    }
    base_files = {o.profiles[0]};
    new_files = {o.profiles[1]};
  } else {
    base_files.assign(o.profiles.begin(), sep);
    new_files.assign(sep + 1, o.profiles.end());
    if (base_files.empty() || new_files.empty() ||
        std::find(sep + 1, o.profiles.end(), std::string(kDiffSeparator)) !=
            o.profiles.end()) {
      std::cerr << "andweorc: diff A1 A2 ... -- B1 B2 ...: one '--' with at "
                   "least one profile on each side\n";
      return kExitUsage;
    }
  }
  Side base, next;
  if (!load_side(base_files, &base) || !load_side(new_files, &next)) {
    return kExitUsage;
  }
  compare::SourceText base_source(o.base_source_map);
  compare::SourceText new_source(o.new_source_map);
  compare::DiffOptions options;
  options.base_source = &base_source;
  options.new_source = &new_source;
  // Region tests cover the smallest slow-down any region rule asks about.
  for (const compare::FailRule& r : *rules) {
    if (r.kind == compare::FailRule::Kind::kRegionSlowdown && r.threshold > 0)
      options.region_min_pct = std::min(options.region_min_pct, r.threshold);
  }
  compare::ProfileDiff diff =
      compare::diff_runs(base.combined(), base.pointers(), next.combined(),
                         next.pointers(), options);
  compare::DiffReport report;
  report.base_name = joined(base_files);
  report.new_name = joined(new_files);
  report.base_files = base_files;
  report.new_files = new_files;
  report.diff = &diff;
  report.rules = *rules;
  report.findings = compare::evaluate_fail_rules(diff, *rules);
  report.top = o.top;
  std::ostringstream out;
  if (o.format == "json") {
    compare::write_diff_json(report, out);
  } else if (o.format == "markdown") {
    compare::write_diff_markdown(report, out);
  } else {
    compare::write_diff_text(report, out);
  }
  if (o.output.empty() || o.output == "-") {
    std::cout << out.str();
  } else if (!profile::write_file_atomic(o.output, out.str(), &error)) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  return report.findings.empty() ? kExitOk : kExitRegression;
}

}  // namespace

CommandRunner add_diff_command(CLI::App& app) {
  auto o = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand(
      "diff",
      "Compare two profiles (BASE NEW), or two sets of runs (A1 A2 ... -- B1 "
      "B2 ...): impact changes, new and gone bottlenecks, slowdowns");
  cmd->add_option("PROFILES", o->profiles,
                  "BASE NEW; or BASE's runs, then '--' and NEW's runs "
                  "(each side's runs are merged; their spread is noise)")
      ->required();
  cmd->add_option("-f,--format", o->format,
                  "text, json, or markdown (a pull-request comment)")
      ->check(CLI::IsMember({"text", "json", "markdown"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output,
                  "Write to this file instead of standard output");
  cmd->add_option(
         "--fail-on", o->fail_on,
         "Exit 1 when a rule is broken: new-bottleneck, impact-increase=X, "
         "share-increase=PP, slowdown=PCT, cpu-slowdown=PCT, "
         "region-slowdown=PCT (comma-separated or repeated; docs/diff.md)")
      // One rule list per occurrence, so `--fail-on X BASE NEW` still
      // reads BASE and NEW as the profiles.
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--base-source-map", o->base_source_map,
                  "FROM=TO: read BASE's source files with prefix FROM at TO "
                  "(to match lines by their text)");
  cmd->add_option("--new-source-map", o->new_source_map,
                  "FROM=TO: the same for NEW's source files");
  cmd->add_option("-n,--top", o->top, "Unchanged lines and share rows to list")
      ->capture_default_str();
  return [o] { return run_diff(*o); };
}

}  // namespace andweorc::cli
