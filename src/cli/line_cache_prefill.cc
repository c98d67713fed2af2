// line_cache_prefill.cc: see line_cache_prefill.h.
#include "cli/line_cache_prefill.h"

#include <filesystem>

#include "cli/probe_options.h"
#include "symbols/line_cache.h"
#include "symbols/module.h"
#include "symbols/module_lines.h"
#include "symbols/scope.h"

namespace andweorc::cli {
namespace {

// A few MB each (zstd's: 2 MB): the programs someone is working on.
constexpr size_t kKeptEntries = 32;

}  // namespace

std::string prefill_line_cache(const std::string& program,
                               const std::vector<std::string>& binary_scope,
                               const std::vector<std::string>& source_scope) {
  std::string dir = symbols::default_cache_dir();
  if (dir.empty()) return "";
  std::string entry = "ANDWEORC_LINE_CACHE=" + dir;
  std::error_code ec;
  // The path the program will see as /proc/self/exe (MAIN in the scope).
  std::filesystem::path exe =
      std::filesystem::canonical(find_executable(program), ec);
  if (ec) return entry;
  symbols::ScopeMatcher scope(
      binary_scope.empty() ? symbols::default_binary_scope() : binary_scope,
      source_scope.empty() ? symbols::default_source_scope() : source_scope);
  if (!scope.binary_matches(exe.string(), exe.string())) return entry;
  std::string error;
  std::unique_ptr<symbols::Module> mod =
      symbols::Module::open(exe.string(), "", &error);
  if (mod == nullptr || !mod->has_dwarf()) return entry;
  std::string path = symbols::line_cache_path(dir, mod->build_id(), scope);
  if (path.empty()) return entry;
  symbols::ModuleLines lines;
  if (symbols::read_line_cache(path, &lines, &error)) {
    // Used now: the last to go when the cache is pruned.
    std::filesystem::last_write_time(
        path, std::filesystem::file_time_type::clock::now(), ec);
    return entry;
  }
  // Unwritable (a read-only home): the coordinator reads DWARF as before.
  if (symbols::write_line_cache(path, symbols::in_scope_lines(mod.get(), scope),
                                &error))
    symbols::prune_line_cache(dir, kKeptEntries);
  return entry;
}

}  // namespace andweorc::cli
