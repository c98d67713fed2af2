// mechanism.h: which kernel mechanism can count probe hits for this user,
// checked by the tool before the program starts (same user, same kernel).
#ifndef ANDWEORC_PROBES_MECHANISM_H_
#define ANDWEORC_PROBES_MECHANISM_H_

#include <string>

#include "probes/probe_spec.h"

namespace andweorc::probes {

// Hardware breakpoints per thread (x86 debug registers).
constexpr size_t kMaxBreakpoints = 4;

// "uprobe" or "breakpoint", or "" with `error` saying why neither works.
// `wanted` is "auto", "uprobe" or "breakpoint"; `site` is one real site
// (the uprobe check opens an event on it for the tool's own process, where
// it never fires); `site_count` is the number of sites of all probes.
std::string choose_mechanism(const std::string& wanted, const ProbeSite& site,
                             size_t site_count, std::string* error);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_MECHANISM_H_
