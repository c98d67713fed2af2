// patch_sites.h: plans the in-process patch of every probe site from the
// ELF file's symbol table and code (the enclosing function of each site).
#ifndef ANDWEORC_PROBES_PATCH_SITES_H_
#define ANDWEORC_PROBES_PATCH_SITES_H_

#include <string>
#include <vector>

#include "probes/probe_spec.h"

namespace andweorc::probes {

// Sets each site's `patch` (encoded plan) or `patch_refused` (why not).
// The enclosing function is the FUNC symbol of `path`'s .symtab (else
// .dynsym) that covers the site; its parts split off by the compiler
// ("f.cold") are scanned too. A site without one is refused.
void plan_patches(const std::string& path, std::vector<ProbeSite>* sites);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_PATCH_SITES_H_
