// mechanism.h: which kernel mechanism can count probe hits for this user,
// checked by the tool before the program starts (same user, same kernel).
#ifndef ANDWEORC_PROBES_MECHANISM_H_
#define ANDWEORC_PROBES_MECHANISM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "probes/probe_spec.h"

namespace andweorc::probes {

// Hardware breakpoints per thread (x86 debug registers).
constexpr size_t kMaxBreakpoints = 4;

// True when the instruction starting at `code` (up to `len` bytes) has a
// legacy prefix the kernel's x86 uprobes reject (arch/x86/kernel/uprobes.c,
// is_prefix_bad: LOCK, ES, CS, DS, SS).
bool uprobe_refuses_instruction(const uint8_t* code, size_t len);

// "uprobe" or "breakpoint", or "" with `error` saying why neither works.
// `wanted` is "auto" (breakpoints when they can count every site, else
// uprobes), "uprobe" or "breakpoint"; `sites` are those of all probes (the
// uprobe check opens an event on the first for the tool's own process,
// where it never fires). With uprobes, sites uprobes refuse need hardware
// breakpoints (at most kMaxBreakpoints) as well.
std::string choose_mechanism(const std::string& wanted,
                             const std::vector<ProbeSite>& sites,
                             std::string* error);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_MECHANISM_H_
