// diff_command.cc: `andweorc diff BASE NEW` compares two profiles.
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "compare/diff_writers.h"
#include "compare/fail_on.h"
#include "compare/profile_diff.h"
#include "profile/atomic_file.h"
#include "profile/profile_loader.h"

namespace andweorc::cli {
namespace {

struct DiffOptions {
  std::string base, next;
  std::string format = "text";
  std::string output;
  std::vector<std::string> fail_on;
  std::string base_source_map, new_source_map;
  size_t top = 10;
};

int run_diff(const DiffOptions& o) {
  std::string error;
  auto rules = compare::parse_fail_rules(o.fail_on, &error);
  if (!rules) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  profile::ReadResult base = profile::load_profile(o.base);
  if (!base.ok()) {
    std::cerr << "andweorc: " << base.error << "\n";
    return kExitUsage;
  }
  profile::ReadResult next = profile::load_profile(o.next);
  if (!next.ok()) {
    std::cerr << "andweorc: " << next.error << "\n";
    return kExitUsage;
  }
  compare::SourceText base_source(o.base_source_map);
  compare::SourceText new_source(o.new_source_map);
  compare::DiffOptions options;
  options.base_source = &base_source;
  options.new_source = &new_source;
  compare::ProfileDiff diff =
      compare::diff_profiles(*base.profile, *next.profile, options);
  compare::DiffReport report;
  report.base_name = o.base;
  report.new_name = o.next;
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
      "diff", "Compare two profiles: impact changes, new and gone bottlenecks");
  cmd->add_option("BASE", o->base, "The reference profile (e.g. of main)")
      ->required();
  cmd->add_option("NEW", o->next, "The profile to compare (e.g. of a PR)")
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
         "share-increase=PP, slowdown=PCT (comma-separated or repeated)")
      // One rule list per occurrence, so `--fail-on X BASE NEW` still
      // reads BASE and NEW as the profiles.
      ->expected(1)
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
