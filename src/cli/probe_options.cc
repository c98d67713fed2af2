// probe_options.cc: --progress / --probe-mechanism for `andweorc run`.
#include "cli/probe_options.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <set>

#include "cli/exit_codes.h"
#include "probes/mechanism.h"
#include "probes/probe_spec.h"
#include "probes/resolve.h"

namespace andweorc::cli {
namespace {

// The file execvp would run for `name`.
std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

}  // namespace

void add_probe_options(CLI::App* cmd, ProbeOptions* o) {
  const char* group = "Causal experiments";
  cmd->add_option("--progress", o->progress,
                  "A progress point without annotations: NAME=FUNCTION (one "
                  "visit per call, inlined copies included) or "
                  "NAME=FILE:LINE (one per execution of the line), in the "
                  "main executable. Repeatable; see docs/probes.md")
      ->group(group);
  cmd->add_option("--probe-mechanism", o->mechanism,
                  "How --progress points are counted: uprobe (root), "
                  "breakpoint (hardware, at most 4 addresses) or auto")
      ->check(CLI::IsMember({"auto", "uprobe", "breakpoint"}))
      ->capture_default_str()
      ->group(group);
}

int probe_environment(const ProbeOptions& o,
                      const std::vector<std::string>& command, bool quiet,
                      std::vector<std::string>* env) {
  if (o.progress.empty() || command.empty()) return kExitOk;
  std::string binary = find_executable(command[0]);
  std::vector<probes::ResolvedProbe> resolved;
  std::set<std::string> names;
  std::vector<probes::ProbeSite> sites;
  for (const auto& text : o.progress) {
    std::string error;
    auto spec = probes::parse_probe_spec(text, &error);
    if (spec && !names.insert(spec->name).second)
      error = "--progress " + spec->name + ": the name is given twice";
    std::optional<probes::ResolvedProbe> probe;
    if (error.empty()) probe = probes::resolve_probe(binary, *spec, &error);
    if (!probe) {
      std::cerr << "andweorc: " << error << "\n";
      return kExitUsage;
    }
    sites.insert(sites.end(), probe->sites.begin(), probe->sites.end());
    resolved.push_back(std::move(*probe));
  }
  std::string error;
  std::string mechanism = probes::choose_mechanism(o.mechanism, sites, &error);
  if (mechanism.empty()) {
    std::cerr << "andweorc: " << error << "\n";
    return kExitUsage;
  }
  if (!quiet)
    for (const auto& p : resolved) {
      size_t refused = 0;
      for (const auto& s : p.sites) refused += s.uprobe_refuses;
      std::cerr << "andweorc: progress point '" << p.name << "' = " << p.target
                << ": " << p.sites.size() << " address"
                << (p.sites.size() == 1 ? "" : "es") << ", counted by "
                << mechanism;
      if (mechanism == "uprobe" && refused > 0)
        std::cerr << " (" << refused
                  << " by hardware breakpoint: instructions uprobes refuse)";
      std::cerr << "\n";
    }
  env->push_back("ANDWEORC_PROBES=" + probes::encode_probes(resolved));
  env->push_back("ANDWEORC_PROBE_MECHANISM=" + mechanism);
  return kExitOk;
}

}  // namespace andweorc::cli
