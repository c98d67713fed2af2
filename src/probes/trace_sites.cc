// trace_sites.cc: see trace_sites.h.
#include "probes/trace_sites.h"

#include <fmt/format.h>

#include "probes/patch_sites.h"
#include "probes/resolve.h"
#include "probes/trace_plan.h"

namespace andweorc::probes {

std::optional<TraceProbes> trace_probes(const std::string& binary,
                                        const std::string& function,
                                        std::string* error) {
  ProbeSpec spec;
  spec.name = function;
  spec.target = function;
  spec.function = function;
  // LIB:FUNCTION: in that shared library only (probe_spec.h).
  split_library(function, &spec.object, &spec.function);
  if (spec.function.empty() ||
      function.find_first_of("\t\n") != std::string::npos) {
    *error = "--trace: give a function name, got '" + function + "'";
    return std::nullopt;
  }
  auto resolved = resolve_probe(binary, spec, error);
  if (!resolved) {
    if (error->rfind("--progress ", 0) == 0) error->replace(0, 10, "--trace");
    return std::nullopt;
  }
  auto out = plan_calls(*resolved, "--trace " + function, error);
  if (out) out->entries.name = out->exits.name = function;
  return out;
}

std::optional<TraceProbes> plan_calls(const ResolvedProbe& resolved,
                                      const std::string& option,
                                      std::string* error) {
  TraceProbes out;
  out.entries.name = out.exits.name = resolved.name;
  out.entries.target = out.exits.target = resolved.target;
  out.entries.kind = kKindTraceEntry;
  out.exits.kind = kKindTraceExit;
  out.entries.patchable = out.exits.patchable = false;  // planned here
  out.entries.program = out.exits.program = resolved.program;
  out.entries.object = out.exits.object = resolved.object;
  size_t inlined = 0;
  for (const ProbeSite& s : resolved.sites) {
    if (s.inlined) {
      ++inlined;
      continue;
    }
#if defined(__x86_64__)
    CodeRange code;
    std::vector<CodeRange> others;
    std::string name, why;
    if (!function_code(s.path, s.vaddr, &code, &others, &name, &why)) {
      out.skipped.push_back(s.where + ": " + why);
      continue;
    }
    if (code.vaddr != s.vaddr) {
      out.skipped.push_back(s.where + ": the entry is not the start of " +
                            name);
      continue;
    }
    TracePlan plan = plan_trace(code, others);
    if (!plan.ok) {
      out.skipped.push_back(s.where + ": " + plan.refusal + " (in " + name +
                            ")");
      continue;
    }
    ProbeSite entry = s;
    entry.patch = encode_patch(plan.entry);
    out.entries.sites.push_back(entry);
    for (size_t i = 0; i < plan.exits.size(); ++i) {
      ProbeSite exit = s;
      exit.offset = s.offset + (plan.exit_sites[i] - s.vaddr);
      exit.vaddr = plan.exit_sites[i];
      exit.where = fmt::format("{} exit at {:#x}", s.where, exit.vaddr);
      exit.patch = encode_patch(plan.exits[i]);
      out.exits.sites.push_back(exit);
    }
    ++out.copies;
#else
    out.skipped.push_back(s.where + ": tracing patches x86-64 code only");
#endif
  }
  if (inlined > 0)
    out.skipped.push_back(fmt::format(
        "{} inlined copy(ies): no call to time (trace the caller, or build "
        "with -fno-inline)",
        inlined));
  if (out.copies == 0) {
    *error = option + ": no copy can be timed from its entry to its return: ";
    for (size_t i = 0; i < out.skipped.size(); ++i)
      *error += (i ? "; " : "") + out.skipped[i];
    return std::nullopt;
  }
  return out;
}

}  // namespace andweorc::probes
