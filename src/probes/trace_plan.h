// trace_plan.h: `--trace FUNCTION`: the patches that time each call of an
// out-of-line copy, one at its entry and one at each exit (a `ret` and the
// instructions before it), or why the copy cannot be traced.
#ifndef ANDWEORC_PROBES_TRACE_PLAN_H_
#define ANDWEORC_PROBES_TRACE_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "probes/patch_plan.h"

namespace andweorc::probes {

struct TracePlan {
  bool ok = false;
  std::string refusal;  // why not, when !ok
  PatchPlan entry;      // at the function's entry
  std::vector<uint64_t> exit_sites;
  std::vector<PatchPlan> exits;  // each ends with the `ret` of its exit
};

// Plans the trace of the function whose code is `function` (its entry at
// function.vaddr) with split parts `others`. Every way out must be a `ret`
// we patch: the copy is refused (with the reason) when it has a tail call
// (a `jmp` out of the function: its end is the callee's return, which we
// would not see) or an indirect jump (a tail call or a jump table), when
// an exit has fewer than 5 bytes of straight-line code ending with its
// `ret`, when something branches into those bytes (plan_patch's checks),
// or when the entry's bytes and an exit's overlap (a tiny function).
TracePlan plan_trace(const CodeRange& function,
                     const std::vector<CodeRange>& others);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_TRACE_PLAN_H_
