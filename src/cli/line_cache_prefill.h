// line_cache_prefill.h: `andweorc run` reads the program's DWARF before
// starting it, so that the coordinator inside the program reads a file
// instead (symbols/line_cache.h): the catalog's hundreds of milliseconds of
// DWARF on a large program are spent before the program runs, once per
// binary, not on its cores at every run.
#ifndef ANDWEORC_CLI_LINE_CACHE_PREFILL_H_
#define ANDWEORC_CLI_LINE_CACHE_PREFILL_H_

#include <string>
#include <vector>

namespace andweorc::cli {

// When the cache has a directory (symbols::default_cache_dir()), makes sure
// it holds the lines of `program`'s executable (resolved as execvp would)
// under these scopes, and returns "ANDWEORC_LINE_CACHE=dir" for the
// runtime's environment; "" without a directory. A program the cache cannot
// describe (a script, no build-id, no debug info, out of the binary scope)
// is left to the coordinator, which says why in the profile.
std::string prefill_line_cache(const std::string& program,
                               const std::vector<std::string>& binary_scope,
                               const std::vector<std::string>& source_scope);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_LINE_CACHE_PREFILL_H_
