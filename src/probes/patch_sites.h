// patch_sites.h: plans the in-process patch of every probe site from the
// ELF file's symbol table and code (the enclosing function of each site).
#ifndef ANDWEORC_PROBES_PATCH_SITES_H_
#define ANDWEORC_PROBES_PATCH_SITES_H_

#include <string>
#include <vector>

#include "probes/patch_plan.h"
#include "probes/probe_spec.h"

namespace andweorc::probes {

// Sets each site's `patch` (encoded plan) or `patch_refused` (why not).
// The enclosing function is the FUNC symbol of `path`'s .symtab (else
// .dynsym) that covers the site; its parts split off by the compiler
// ("f.cold") are scanned too. A site without one is refused.
void plan_patches(const std::string& path, std::vector<ProbeSite>* sites);

// The code of the function whose FUNC symbol covers `vaddr` in `path`
// (`function`, is_entry unless it is a ".cold" part) and of its split parts
// (`others`); false with `error` if there is none or it cannot be read.
bool function_code(const std::string& path, uint64_t vaddr, CodeRange* function,
                   std::vector<CodeRange>* others, std::string* name,
                   std::string* error);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_PATCH_SITES_H_
