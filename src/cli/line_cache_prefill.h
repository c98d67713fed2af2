// line_cache_prefill.h: `andweorc run` reads the program's DWARF before
// starting it, so that the coordinator inside the program reads a file
// instead (symbols/line_cache.h): the catalog's hundreds of milliseconds of
// DWARF on a large program are spent before the program runs, once per
// binary, not on its cores at every run.
#ifndef ANDWEORC_CLI_LINE_CACHE_PREFILL_H_
#define ANDWEORC_CLI_LINE_CACHE_PREFILL_H_

#include <string>
#include <vector>

#include "cli/run_options.h"

namespace andweorc::cli {

// With experiments on and a directory for the cache
// (symbols::default_cache_dir()), makes sure it holds the lines of
// `program`'s executable (resolved as execvp would) under the run's scopes,
// and appends ANDWEORC_LINE_CACHE=dir to *env. A program the cache cannot
// describe (a script, no build-id, no debug info, out of the binary scope)
// is left to the coordinator, which says why in the profile.
void prefill_line_cache(const RunOptions& o, const std::string& program,
                        std::vector<std::string>* env);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_LINE_CACHE_PREFILL_H_
