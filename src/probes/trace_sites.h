// trace_sites.h: `--trace FUNCTION` resolved (DWARF) and planned (Capstone)
// into the runtime's entry and exit lines (ANDWEORC_PROBES kinds 5 and 6).
#ifndef ANDWEORC_PROBES_TRACE_SITES_H_
#define ANDWEORC_PROBES_TRACE_SITES_H_

#include <optional>
#include <string>
#include <vector>

#include "probes/probe_spec.h"

namespace andweorc::probes {

// ANDWEORC_PROBES kinds of a traced function's entry and exits.
constexpr int kKindTraceEntry = 5;
constexpr int kKindTraceExit = 6;

struct TraceProbes {
  ResolvedProbe entries;             // kind 5, one site per traced copy
  ResolvedProbe exits;               // kind 6, one site per ret of those copies
  size_t copies = 0;                 // out-of-line copies traced
  std::vector<std::string> skipped;  // copies not traced, with the reason
};

// ANDWEORC_PROBES kinds of `--latency NAME=FUNCTION` patched in process:
// the same hooks, counting the outermost calls as the point's BEGINs/ENDs.
constexpr int kKindLatencyEntry = 7;
constexpr int kKindLatencyExit = 8;

// Plans the entry and every exit of each out-of-line copy among
// `resolved`'s sites (kinds kKindTraceEntry/Exit, named after `resolved`);
// `option` ("--trace", "--latency NAME") starts the error. nullopt with a
// one-line `error` when no copy can be hooked.
std::optional<TraceProbes> plan_calls(const ResolvedProbe& resolved,
                                      const std::string& option,
                                      std::string* error);

// Resolves FUNCTION (or LIB:FUNCTION) in `binary` or a library it loads
// (resolve_probe's search) and plans every out-of-line copy; inlined
// copies have no call to time and are listed in `skipped`. nullopt with a
// one-line `error` when the function is unknown or no copy can be traced.
std::optional<TraceProbes> trace_probes(const std::string& binary,
                                        const std::string& function,
                                        std::string* error);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_TRACE_SITES_H_
