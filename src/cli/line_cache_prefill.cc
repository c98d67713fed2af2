// line_cache_prefill.cc: see line_cache_prefill.h.
#include "cli/line_cache_prefill.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>

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

void prefill_line_cache(const RunOptions& o, const std::string& program,
                        std::vector<std::string>* env) {
  // Only the experiments' coordinator builds a line catalog.
  std::string dir = o.no_experiments ? "" : symbols::default_cache_dir();
  if (dir.empty()) return;
  env->push_back("ANDWEORC_LINE_CACHE=" + dir);
  std::error_code ec;
  // The path the program will see as /proc/self/exe (MAIN in the scope).
  std::filesystem::path exe =
      std::filesystem::canonical(find_executable(program), ec);
  if (ec) return;
  symbols::ScopeMatcher scope(
      o.binary_scope.empty() ? symbols::default_binary_scope() : o.binary_scope,
      o.source_scope.empty() ? symbols::default_source_scope()
                             : o.source_scope);
  if (!scope.binary_matches(exe.string(), exe.string())) return;
  std::string error;
  std::unique_ptr<symbols::Module> mod =
      symbols::Module::open(exe.string(), "", &error);
  if (mod == nullptr || !mod->has_dwarf()) return;
  std::string path = symbols::line_cache_path(dir, mod->build_id(), scope);
  if (path.empty()) return;
  symbols::ModuleLines lines;
  if (symbols::read_line_cache(path, &lines, &error)) {
    // Used now: the last to go when the cache is pruned.
    std::filesystem::last_write_time(
        path, std::filesystem::file_time_type::clock::now(), ec);
    return;
  }
  auto start = std::chrono::steady_clock::now();
  lines = symbols::in_scope_lines(mod.get(), scope);
  // Unwritable (a read-only home): the coordinator reads DWARF as before.
  if (symbols::write_line_cache(path, lines, &error))
    symbols::prune_line_cache(dir, kKeptEntries);
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // A large program's first run waits for this: say why.
  if (s >= 1 && !o.quiet)
    std::cerr << fmt::format(
        "andweorc: read the debug info of {} in {:.1f} s before starting it "
        "(once per build: kept in {})\n",
        exe.string(), s, dir);
}

}  // namespace andweorc::cli
