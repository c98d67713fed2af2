// trace_plan.cc: entry and exit patches of a traced function (see
// trace_plan.h).
#include "probes/trace_plan.h"

#include <fmt/format.h>

namespace andweorc::probes {
namespace {

bool inside(const std::vector<const CodeRange*>& parts, uint64_t address) {
  for (const CodeRange* p : parts)
    if (address >= p->vaddr && address < p->vaddr + p->bytes.size())
      return true;
  return false;
}

TracePlan refuse(std::string why) {
  TracePlan plan;
  plan.refusal = std::move(why);
  return plan;
}

}  // namespace

TracePlan plan_trace(const CodeRange& function,
                     const std::vector<CodeRange>& others) {
  std::vector<const CodeRange*> parts{&function};
  for (const auto& o : others) parts.push_back(&o);
  TracePlan plan;
  for (size_t p = 0; p < parts.size(); ++p) {
    std::vector<InsnInfo> insns;
    std::string error;
    if (!decode_range(*parts[p], &insns, &error))
      return refuse("the function does not decode cleanly: " + error);
    std::vector<CodeRange> rest;  // the other parts, for plan_patch
    for (size_t q = 0; q < parts.size(); ++q)
      if (q != p) rest.push_back(*parts[q]);
    for (size_t i = 0; i < insns.size(); ++i) {
      const InsnInfo& d = insns[i];
      if (d.indirect_jump)
        return refuse(fmt::format(
            "an indirect jump at {:#x} (a tail call or a jump table) leaves "
            "or may leave the function without a ret",
            d.address));
      // A jmp or jcc (or xbegin) out of the function: a tail call.
      if (!d.call && d.has_target && !inside(parts, d.target))
        return refuse(fmt::format(
            "a tail call at {:#x} to {:#x}: the call ends when the callee "
            "returns, which is not seen (build with "
            "-fno-optimize-sibling-calls to trace it)",
            d.address, d.target));
      if (!d.ret) continue;
      // The straight-line bytes that end with this ret: >= 5 for the jump.
      size_t first = i, length = d.size;
      while (length < kPatchJumpBytes) {
        if (first == 0 || insns[first - 1].ends_flow)
          return refuse(fmt::format(
              "the exit at {:#x} has {} byte(s) of straight-line code ending "
              "with its ret; the jump needs {}",
              d.address, length, kPatchJumpBytes));
        --first;
        length += insns[first].size;
      }
      PatchPlan exit =
          plan_patch(*parts[p], rest, insns[first].address, d.address + d.size);
      if (!exit.ok)
        return refuse(
            fmt::format("the exit at {:#x}: {}", d.address, exit.refusal));
      if (exit.length != length)
        return refuse(
            fmt::format("the exit at {:#x}: the patch would not end at its ret",
                        d.address));
      plan.exit_sites.push_back(insns[first].address);
      plan.exits.push_back(std::move(exit));
    }
  }
  if (plan.exits.empty())
    return refuse("the function has no ret (it never returns)");
  plan.entry = plan_patch(function, others, function.vaddr);
  if (!plan.entry.ok) return refuse("its entry: " + plan.entry.refusal);
  for (uint64_t site : plan.exit_sites)
    if (site < function.vaddr + plan.entry.length)
      return refuse(fmt::format(
          "the entry's {} patched bytes reach the exit at {:#x} (a function "
          "this short cannot be traced)",
          plan.entry.length, site));
  plan.ok = true;
  return plan;
}

}  // namespace andweorc::probes
