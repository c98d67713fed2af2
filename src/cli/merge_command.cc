// merge_command.cc: `andweorc merge A B ... -o OUT` combines profiles.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "profile/merge.h"
#include "profile/profile_json.h"
#include "profile/profile_loader.h"

namespace andweorc::cli {
namespace {

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string output;
  bool force = false;
};

int run_merge(const MergeOptions& o) {
  std::vector<profile::Profile> profiles;
  profiles.reserve(o.inputs.size());
  for (const std::string& path : o.inputs) {
    profile::ReadResult r = profile::load_profile(path);
    if (!r.ok()) {
      std::cerr << "andweorc: " << r.error << "\n";
      return kExitUsage;
    }
    profiles.push_back(std::move(*r.profile));
  }
  std::vector<profile::MergeInput> inputs;
  for (size_t i = 0; i < profiles.size(); ++i) {
    inputs.push_back({o.inputs[i], &profiles[i]});
  }
  profile::MergeOptions options;
  options.force = o.force;
  profile::MergeResult merged = profile::merge_profiles(inputs, options);
  if (!merged.ok()) {
    std::cerr << "andweorc: " << merged.error << "\n";
    return kExitUsage;
  }
  std::string error;
  if (!profile::write_profile(*merged.profile, o.output, &error)) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  std::cerr << "andweorc: merged " << o.inputs.size() << " profiles ("
            << merged.profile->experiments.size() << " experiments, "
            << merged.profile->samples << " samples) into " << o.output << "\n";
  return kExitOk;
}

}  // namespace

CommandRunner add_merge_command(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine profiles of one program into one (more experiments)");
  cmd->add_option("FILES", o->inputs,
                  "Profiles (andweorc JSON or Coz's profile.coz)")
      ->required();
  cmd->add_option("-o,--output", o->output,
                  "The merged profile (JSON, written atomically)")
      ->required();
  cmd->add_flag("--force", o->force, "Merge profiles of different programs");
  return [o] { return run_merge(*o); };
}

}  // namespace andweorc::cli
