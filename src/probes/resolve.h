// resolve.h: a function name or FILE:LINE -> the addresses that count it,
// through the binary's DWARF (elfutils libdw), inlined copies included.
#ifndef ANDWEORC_PROBES_RESOLVE_H_
#define ANDWEORC_PROBES_RESOLVE_H_

#include <optional>
#include <string>

#include "probes/probe_spec.h"

namespace andweorc::probes {

// Resolves `spec` in the executable `binary` or a shared library it loads
// at start-up (linked_objects.h): with spec.object (LIB:...) in that library
// only; else in the executable, and only when it has no such function (or
// file) in every library, in the loader's order: found in one, that one;
// in several, ambiguous (the error names them and the LIB: form). All sites
// are in one object; their path, offset and vaddr are that file's, and the
// result's `program`/`object` say which (the runtime adds its load bias).
//  - FUNCTION: the entry of every out-of-line copy (DW_TAG_subprogram with
//    code) and of every inlined copy (DW_TAG_inlined_subroutine: entry_pc,
//    else low_pc), matched by plain name, qualified name without
//    parameters ("ns::C::f") or full demangled name ("ns::C::f(int)").
//  - FILE:LINE: the first address of each is_stmt block of that line in
//    every line table, FILE matched as a path suffix at a '/'.
// Several distinct functions or files matching in one object, nothing
// matching anywhere, or no code at the line: nullopt with a one-line
// `error` listing the candidates (and the libraries searched).
std::optional<ResolvedProbe> resolve_probe(const std::string& binary,
                                           const ProbeSpec& spec,
                                           std::string* error);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_RESOLVE_H_
