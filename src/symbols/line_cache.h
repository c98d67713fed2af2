// line_cache.h: a file's in-scope lines (module_lines.h) kept on disk
// between runs, one file per ELF build-id and source scope.
//
// `andweorc run` fills it before it starts the program, and the coordinator
// reads it instead of the program's DWARF (ANDWEORC_LINE_CACHE): the
// catalog then costs the profiled process a file read, not hundreds of
// milliseconds of DWARF on its cores. A file the coordinator had to read
// itself (a library in scope, a program a shell started) is saved for the
// next run. A cache entry is never trusted blindly: the build-id names the
// exact binary, the scope is part of the name, and a checksum and bounds
// checks turn a truncated or corrupt file into a miss.
#ifndef ANDWEORC_SYMBOLS_LINE_CACHE_H_
#define ANDWEORC_SYMBOLS_LINE_CACHE_H_

#include <string>

#include "symbols/module_lines.h"
#include "symbols/scope.h"

namespace andweorc::symbols {

// $ANDWEORC_CACHE_DIR, else $XDG_CACHE_HOME/andweorc, else
// $HOME/.cache/andweorc; "" when ANDWEORC_CACHE_DIR is "off" or no
// variable says where.
std::string default_cache_dir();

// Where the lines of the binary with `build_id` (hex) under `scope` are
// kept in `cache_dir`; "" when there is no build-id to name them by.
std::string line_cache_path(const std::string& cache_dir,
                            const std::string& build_id,
                            const ScopeMatcher& scope);

// Writes through a temporary file renamed into place (readers see the whole
// file or none; two writers race harmlessly), creating the directories.
bool write_line_cache(const std::string& path, const ModuleLines& lines,
                      std::string* error);

// False with *error when the file is missing, of another format version,
// truncated or corrupt.
bool read_line_cache(const std::string& path, ModuleLines* out,
                     std::string* error);

// Keeps the `keep` entries of `cache_dir` used last (by modification time:
// the tool touches an entry it finds) and removes the others, and any
// temporary file a killed writer left: every rebuild of a program has a new
// build-id, and so a new entry.
void prune_line_cache(const std::string& cache_dir, size_t keep);

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_LINE_CACHE_H_
