// probe_options.cc: --progress / --probe-mechanism for `andweorc run`.
#include "cli/probe_options.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>

#include "cli/exit_codes.h"
#include "probes/mechanism.h"
#include "probes/patch_sites.h"
#include "probes/probe_spec.h"
#include "probes/resolve.h"
#include "probes/trace_sites.h"

namespace andweorc::cli {

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

namespace {

// Resolves NAME=TARGET and plans every address for patching; false with
// `error` when it cannot be resolved or an address cannot be patched.
std::optional<probes::ResolvedProbe> live_patched(const std::string& binary,
                                                  const std::string& name,
                                                  const std::string& target,
                                                  std::string* error) {
  auto spec = probes::parse_probe_spec(name + "=" + target, error);
  if (!spec) return std::nullopt;
  if (spec->name != name) {  // "a=b" as the name
    *error = "probe: the name '" + name + "' may not hold '='";
    return std::nullopt;
  }
  auto probe = probes::resolve_probe(binary, *spec, error);
  if (!probe) return std::nullopt;
#if defined(__x86_64__)
  if (!probe->sites.empty())
    probes::plan_patches(probe->sites.front().path, &probe->sites);
#endif
  std::string refused;
  for (const auto& s : probe->sites)
    if (s.patch.empty())
      refused += (refused.empty() ? "" : "; ") + s.where + ": " +
                 (s.patch_refused.empty() ? "not planned" : s.patch_refused);
  if (!refused.empty()) {
    *error = "probe '" + name + "': cannot patch safely: " + refused +
             " (a probe from the page is only patched in process; "
             "--progress at the start can count it with a perf event)";
    return std::nullopt;
  }
  return probe;
}

// The entry and exits of every out-of-line copy of FUNCTION, hooked.
bool live_hooks(const std::string& binary, const std::string& kind,
                const std::string& name, const std::string& target,
                std::string* lines, size_t* sites, std::string* error) {
  std::optional<probes::TraceProbes> calls;
  if (kind == "trace") {
    calls = probes::trace_probes(binary, target, error);
  } else {
    auto spec = probes::parse_probe_spec(name + "=" + target, error);
    if (!spec) return false;
    auto probe = probes::resolve_probe(binary, *spec, error);
    if (!probe) {
      if (error->rfind("--progress ", 0) == 0) error->replace(0, 10, "latency");
      return false;
    }
    calls = probes::plan_calls(*probe, "latency " + name, error);
    if (calls) {
      size_t out_of_line = 0;
      for (const auto& s : probe->sites) out_of_line += !s.inlined;
      if (calls->copies < out_of_line) {
        *error = "latency " + name + ": cannot patch safely: ";
        for (size_t i = 0; i < calls->skipped.size(); ++i)
          *error += (i ? "; " : "") + calls->skipped[i];
        *error += " (a probe from the page is only patched in process)";
        return false;
      }
      calls->entries.kind = probes::kKindLatencyEntry;
      calls->exits.kind = probes::kKindLatencyExit;
    }
  }
  if (!calls) return false;
  *lines = probes::encode_probes({calls->entries, calls->exits}, true);
  *sites = calls->entries.sites.size() + calls->exits.sites.size();
  return true;
}

}  // namespace

bool live_probe_lines(const std::string& binary, const std::string& kind,
                      const std::string& name, const std::string& target,
                      std::string* lines, size_t* sites, std::string* error) {
  if (kind == "trace") {
    if (target.find_first_of("\t\n") != std::string::npos || target.empty()) {
      *error = "trace: give a function name, got '" + target + "'";
      return false;
    }
    return live_hooks(binary, kind, name, target, lines, sites, error);
  }
  if (kind == "latency") {
    size_t comma = target.find(',');
    if (comma == std::string::npos)
      return live_hooks(binary, kind, name, target, lines, sites, error);
    // FILE:LINE,FILE:LINE: a count at each address of both lines.
    for (const std::string& half :
         {target.substr(0, comma), target.substr(comma + 1)}) {
      auto spec = probes::parse_probe_spec(name + "=" + half, error);
      if (!spec) return false;
      if (!spec->is_line) {
        *error = "latency " + name +
                 ": both halves of a pair are FILE:LINE (FILE:LINE,"
                 "FILE:LINE), got '" +
                 half + "'";
        return false;
      }
    }
    auto begin = live_patched(binary, name, target.substr(0, comma), error);
    if (!begin) return false;
    auto end = live_patched(binary, name, target.substr(comma + 1), error);
    if (!end) return false;
    begin->kind = 2;  // ANDWEORC_KIND_BEGIN
    end->kind = probes::kKindEndAtAddress;
    *lines = probes::encode_probes({*begin, *end}, true);
    *sites = begin->sites.size() + end->sites.size();
    return true;
  }
  if (kind != "progress") {
    *error =
        "probe: kind '" + kind + "' is not one of progress, latency, trace";
    return false;
  }
  auto probe = live_patched(binary, name, target, error);
  if (!probe) return false;
  *lines = probes::encode_probes({*probe}, true);
  *sites = probe->sites.size();
  return true;
}

void add_probe_options(CLI::App* cmd, ProbeOptions* o) {
  const char* group = "Causal experiments";
  cmd->add_option("--progress", o->progress,
                  "A progress point without annotations: NAME=FUNCTION (one "
                  "visit per call, inlined copies included) or "
                  "NAME=FILE:LINE (one per execution of the line), in the "
                  "executable, else in a shared library it loads; "
                  "NAME=LIB:FUNCTION or NAME=LIB:FILE:LINE (e.g. "
                  "libfoo.so:parse) names the library, and "
                  "NAME=/path/to/prog:FUNCTION a program the profiled one "
                  "starts (sh -c 'prog & load'). Repeatable; see "
                  "docs/probes.md")
      ->group(group);
  cmd->add_option("--latency", o->latency,
                  "A latency point without annotations: NAME=FUNCTION, from "
                  "each outermost call's entry to its return (its entry and "
                  "every ret patched in process, as --trace; uprobes when "
                  "that cannot be), or NAME=FILE:LINE,FILE:LINE, from each "
                  "execution of the first line to each of the second "
                  "(patched like --progress). Repeatable; see docs/probes.md")
      ->group(group);
  cmd->add_option("--trace", o->trace,
                  "Time each call of FUNCTION (or LIB:FUNCTION, in a shared "
                  "library; entry to return, per thread, "
                  "recursion and exceptions handled) by patching its entry "
                  "and every ret in process; samples inside a call carry its "
                  "duration (report --slower-than). Repeatable; see "
                  "docs/probes.md")
      ->group(group);
  cmd->add_option(
         "--probe-mechanism", o->mechanism,
         "How --progress points are counted: patch (a jump to a "
         "trampoline in the program's code, ~ns per hit; addresses "
         "it refuses go to breakpoint or uprobe), breakpoint "
         "(hardware, at most 4 addresses; no --latency NAME=FUNCTION), "
         "uprobe (root) or auto (patch, else breakpoint when "
         "possible)")
      ->check(CLI::IsMember({"auto", "patch", "uprobe", "breakpoint"}))
      ->capture_default_str()
      ->group(group);
}

namespace {

// " in libfoo.so" when the probe's sites are in a shared library.
std::string in_object(const probes::ResolvedProbe& p) {
  return p.object.empty() ? ""
         : p.loaded_later
             ? " in " + p.object +
                   " (not loaded at start-up: patched in process once the "
                   "program loads it)"
             : " in " + p.object;
}

// Resolves one --progress / --latency value; prints the error and returns
// nullopt when it cannot.
// `pair_end`: the second half of a --latency FILE:LINE,FILE:LINE pair (its
// name was taken by the first half).
std::optional<probes::ResolvedProbe> resolve_one(const std::string& option,
                                                 const std::string& text,
                                                 const std::string& binary,
                                                 std::set<std::string>* names,
                                                 bool in_pair = false,
                                                 bool pair_end = false) {
  std::string error;
  auto spec = probes::parse_probe_spec(text, &error);
  if (spec && !pair_end && !names->insert(spec->name).second)
    error = option + " " + spec->name + ": the name is given twice";
  if (spec && error.empty() && option == "--latency" && spec->is_line &&
      !in_pair)
    error = "--latency " + spec->name +
            ": a line needs a begin and an end, NAME=FILE:LINE,FILE:LINE "
            "(or NAME=FUNCTION, entry to return), got '" +
            spec->target + "'";
  if (spec && error.empty() && in_pair && !spec->is_line)
    error = "--latency " + spec->name +
            ": both halves of a pair are FILE:LINE (NAME=FILE:LINE,"
            "FILE:LINE), got '" +
            spec->target + "'";
  std::optional<probes::ResolvedProbe> probe;
  if (error.empty()) probe = probes::resolve_probe(binary, *spec, &error);
  if (!probe) {
    if (option == "--latency" && error.rfind("--progress ", 0) == 0)
      error.replace(0, 10, "--latency");
    std::cerr << "andweorc: " << error << "\n";
  }
  return probe;
}

}  // namespace

int probe_environment(const ProbeOptions& o,
                      const std::vector<std::string>& command, bool quiet,
                      std::vector<std::string>* env) {
  if ((o.progress.empty() && o.latency.empty() && o.trace.empty()) ||
      command.empty())
    return kExitOk;
  std::string binary = find_executable(command[0]);
  // --trace: planned here, always patched in process (a kernel mechanism
  // would cost ~20 us a hit and needs the return address swapped).
  std::string trace_lines;
  std::set<std::string> traced;
  for (const auto& function : o.trace) {
    if (!traced.insert(function).second) continue;
    std::string error;
    auto t = probes::trace_probes(binary, function, &error);
    if (!t) {
      std::cerr << "andweorc: " << error << "\n";
      return kExitUsage;
    }
    if (!quiet) {
      std::cerr << "andweorc: trace '" << function << "': " << t->copies
                << " copy(ies)"
                << (t->entries.object.empty() ? "" : " in " + t->entries.object)
                << ", entry and " << t->exits.sites.size()
                << " exit(s) to patch in process\n";
      for (const auto& why : t->skipped)
        std::cerr << "andweorc: trace '" << function << "': not traced: " << why
                  << "\n";
    }
    trace_lines += probes::encode_probes({t->entries, t->exits}, true);
  }
  if (o.progress.empty() && o.latency.empty()) {
    env->push_back("ANDWEORC_PROBES=" + trace_lines);
    env->push_back("ANDWEORC_PROBE_MECHANISM=patch");
    return kExitOk;
  }
  std::vector<probes::ResolvedProbe> resolved;
  std::set<std::string> names;
  std::vector<probes::ProbeSite> sites;
  std::vector<std::string> lines;  // what each point counts, for the user
  for (const auto& text : o.progress) {
    auto probe = resolve_one("--progress", text, binary, &names);
    if (!probe) return kExitUsage;
    sites.insert(sites.end(), probe->sites.begin(), probe->sites.end());
    size_t refused = 0;
    for (const auto& s : probe->sites) refused += s.uprobe_refuses;
    lines.push_back("progress point '" + probe->name + "' = " + probe->target +
                    ": " + std::to_string(probe->sites.size()) +
                    " address(es)" + in_object(*probe) +
                    (refused ? " (" + std::to_string(refused) +
                                   " by hardware breakpoint if uprobes are "
                                   "used: instructions uprobes refuse)"
                             : ""));
    resolved.push_back(std::move(*probe));
  }
  bool function_latency = false;  // needs return probes (uprobes)
  // --latency NAME=FUNCTION hooked in process (trace_sites.h) and what to
  // tell the user about each.
  std::string hooked_lines;
  std::vector<std::string> hooked;
  const std::string wanted = o.mechanism;
  for (const auto& text : o.latency) {
    size_t eq = text.find('='), comma = text.find(',');
    if (eq != std::string::npos && comma != std::string::npos && comma > eq) {
      // NAME=FILE:LINE,FILE:LINE: begin at every address of the first
      // line, end at every address of the second; both can be patched.
      std::string name = text.substr(0, eq);
      auto begin = resolve_one("--latency",
                               name + "=" + text.substr(eq + 1, comma - eq - 1),
                               binary, &names, true);
      if (!begin) return kExitUsage;
      auto end = resolve_one("--latency", name + "=" + text.substr(comma + 1),
                             binary, &names, true, true);
      if (!end) return kExitUsage;
      begin->kind = 2;  // ANDWEORC_KIND_BEGIN
      end->kind = probes::kKindEndAtAddress;
      for (const auto* p : {&*begin, &*end})
        sites.insert(sites.end(), p->sites.begin(), p->sites.end());
      lines.push_back("latency point '" + name + "' = " + begin->target + " (" +
                      std::to_string(begin->sites.size()) + " address(es)" +
                      in_object(*begin) + ") to " + end->target + " (" +
                      std::to_string(end->sites.size()) + " address(es)" +
                      in_object(*end) + ")");
      resolved.push_back(std::move(*begin));
      resolved.push_back(std::move(*end));
      continue;
    }
    auto probe = resolve_one("--latency", text, binary, &names);
    if (!probe) return kExitUsage;
    // A return can only be seen on an out-of-line copy (patched exits, or a
    // uretprobe replacing the return address the call pushed).
    size_t inlined = 0;
    std::vector<probes::ProbeSite> entries;
    for (const auto& s : probe->sites)
      if (s.inlined)
        ++inlined;
      else
        entries.push_back(s);
    if (entries.empty()) {
      std::cerr << "andweorc: --latency " << probe->name << ": '"
                << probe->target
                << "' has only inlined copies, whose return cannot be "
                   "probed; use a line pair (NAME=FILE:LINE,FILE:LINE), or "
                   "ANDWEORC_BEGIN/END\n";
      return kExitUsage;
    }
    const std::string inlined_note =
        inlined ? "; " + std::to_string(inlined) +
                      " inlined copy(ies) NOT counted (no return to probe)"
                : "";
#if defined(__x86_64__)
    // In process: the entry and every `ret` of each out-of-line copy hooked
    // as --trace does (~ns a call, no root); the kernel's uretprobes only
    // when a copy cannot be (a tail call, a jump table, a tiny exit).
    if (wanted == "auto" || wanted == "patch") {
      std::string why;
      auto calls = probes::plan_calls(*probe, "--latency " + probe->name, &why);
      if (calls && calls->copies == entries.size()) {
        calls->entries.kind = probes::kKindLatencyEntry;
        calls->exits.kind = probes::kKindLatencyExit;
        hooked_lines +=
            probes::encode_probes({calls->entries, calls->exits}, true);
        hooked.push_back(
            "latency point '" + probe->name + "' = " + probe->target +
            ": entry and return of " + std::to_string(calls->copies) +
            " copy(ies)" + in_object(*probe) + " (" +
            std::to_string(calls->exits.sites.size()) +
            " exit(s); outermost calls only, a recursive call is part of "
            "its caller's)" +
            inlined_note + ", patched in process");
        continue;
      }
      if (calls)
        for (const auto& w : calls->skipped)
          if (w.find("inlined copy") == std::string::npos)
            why += (why.empty() ? "" : "; ") + w;
      if (wanted == "patch") {
        std::cerr << "andweorc: " << why
                  << " (--probe-mechanism patch: no uretprobe fallback)\n";
        return kExitUsage;
      }
      if (!quiet)
        std::cerr << "andweorc: --latency " << probe->name
                  << ": not every copy can be patched at its entry and "
                     "exits ("
                  << why << "): counted by uprobes (root)\n";
    }
#endif
    function_latency = true;
    sites.insert(sites.end(), entries.begin(), entries.end());
    lines.push_back("latency point '" + probe->name + "' = " + probe->target +
                    ": entry and return of " + std::to_string(entries.size()) +
                    " copy(ies)" + in_object(*probe) + inlined_note);
    probe->sites = entries;
    probe->patchable = false;  // the return is a uretprobe: both on uprobes
    probe->kind = 2;           // ANDWEORC_KIND_BEGIN at the entry
    resolved.push_back(*probe);
    probe->kind = 3;  // ANDWEORC_KIND_END at the return (uretprobe)
    resolved.push_back(std::move(*probe));
  }
  std::string error;
  if (function_latency) {
    // Hardware breakpoints cannot see a return: latency needs uprobes.
    if (wanted == "breakpoint") {
      std::cerr << "andweorc: --latency needs uprobes (return probes), not "
                   "--probe-mechanism breakpoint\n";
      return kExitUsage;
    }
  }
  // In-process patching of --progress sites the tool can prove safe; the
  // others (and --latency, which needs return probes) go to a perf event.
  size_t patched = 0;
  std::vector<probes::ProbeSite> rest;  // counted by the kernel
  if (wanted == "auto" || wanted == "patch") {
#if defined(__x86_64__)
    for (auto& probe : resolved)
      if (probe.patchable && !probe.sites.empty())
        probes::plan_patches(probe.sites.front().path, &probe.sites);
#endif
    for (const auto& probe : resolved)
      for (const auto& s : probe.sites) {
        if (probe.patchable && !s.patch.empty())
          ++patched;
        else if (!probe.loaded_later)
          rest.push_back(s);
        else {
          // Kernel events are opened at start-up, before the library is
          // there: a library loaded later is patched or not counted.
          std::cerr << "andweorc: '" << probe.name << "' at " << s.where
                    << ": cannot patch safely ("
                    << (s.patch_refused.empty() ? "not planned"
                                                : s.patch_refused)
                    << "), and a library loaded after start-up can only be "
                       "patched in process\n";
          return kExitUsage;
        }
      }
  } else {
    for (const auto& probe : resolved)
      if (probe.loaded_later) {
        std::cerr << "andweorc: '" << probe.name << "' is in " << probe.object
                  << ", which the program loads after start-up: only "
                     "--probe-mechanism auto or patch can count it\n";
        return kExitUsage;
      }
    rest = sites;
  }
  std::string fallback;
  if (!rest.empty()) {
    std::string fallback_wanted = function_latency ? "uprobe" : wanted;
    if (fallback_wanted == "patch") fallback_wanted = "auto";
    fallback = probes::choose_mechanism(fallback_wanted, rest, &error);
    if (fallback.empty()) {
      if (function_latency) error = "--latency: " + error;
      if (patched > 0 || wanted == "patch") {
        error += "; and " + std::to_string(rest.size()) +
                 " address(es) cannot be patched in process:";
        for (const auto& probe : resolved)
          if (probe.patchable)
            for (const auto& s : probe.sites)
              if (s.patch.empty())
                error += " " + s.where + ": " +
                         (s.patch_refused.empty() ? "not planned"
                                                  : s.patch_refused) +
                         ";";
      }
      std::cerr << "andweorc: " << error << "\n";
      return kExitUsage;
    }
  }
  std::string mechanism =
      patched == 0 ? fallback
                   : (fallback.empty() ? "patch" : "patch," + fallback);
  if (!quiet) {
    const std::string how =
        mechanism.rfind("patch,", 0) == 0
            ? "patch (in process; addresses it refuses: " + fallback + ")"
            : mechanism;
    for (const auto& line : lines)
      std::cerr << "andweorc: " << line << ", counted by " << how << "\n";
    // Which addresses could not be patched, and why.
    if (patched > 0 || wanted == "patch")
      for (const auto& probe : resolved)
        if (probe.patchable)
          for (const auto& s : probe.sites)
            if (s.patch.empty())
              std::cerr << "andweorc: '" << probe.name << "' at " << s.where
                        << ": not patched ("
                        << (s.patch_refused.empty() ? "not planned"
                                                    : s.patch_refused)
                        << "), counted by " << fallback << "\n";
  }
  if (!quiet)
    for (const auto& line : hooked) std::cerr << "andweorc: " << line << "\n";
  env->push_back(
      "ANDWEORC_PROBES=" + probes::encode_probes(resolved, patched > 0) +
      hooked_lines + trace_lines);
  // The runtime patches (the traced and hooked functions too) only in a
  // patch mode.
  if ((!trace_lines.empty() || !hooked_lines.empty()) &&
      mechanism.rfind("patch", 0) != 0)
    mechanism = mechanism.empty() ? "patch" : "patch," + mechanism;
  env->push_back("ANDWEORC_PROBE_MECHANISM=" + mechanism);
  return kExitOk;
}

}  // namespace andweorc::cli
