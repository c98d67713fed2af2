// symbolizer.h: addresses of a (possibly finished) process -> source frames.
//
// Built on elfutils libdw/libdwfl. Never call any of this from a signal
// handler: it allocates, opens files and parses DWARF.
//
// Contract:
//  - ProcessMaps parses /proc/<pid>/maps text as the runtime recorded it.
//  - Symbolizer owns one Module per ELF file (cached by path), and a
//    per-(module, address) result cache. Not thread-safe: one thread at a time.
//  - Results list the inline chain innermost first: for an address inside a
//    function that was inlined into its caller, frames[0] is the inlined
//    callee at the address's line, frames[1] is the caller at the call site's
//    line, and so on out to the concrete function.
//  - Bad input never throws or crashes: unknown addresses, missing, deleted or
//    unreadable files give frames with an empty function and line 0, and the
//    reason is reported by modules_seen().
#ifndef ANDWEORC_SYMBOLS_SYMBOLIZER_H_
#define ANDWEORC_SYMBOLS_SYMBOLIZER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace andweorc::symbols {

struct Frame {
  std::string function;  // demangled; empty when unknown
  std::string file;      // absolute or as recorded in DWARF; empty if unknown
  int line = 0;          // 0 when unknown
  bool inlined = false;  // this frame was inlined into the next one
};

struct Location {
  std::vector<Frame> frames;  // innermost first; at least one entry
  std::string module;         // path of the ELF file, "" if unmapped
  // Address in the ELF file's own vaddr space that was looked up (already
  // address - 1 for return addresses); 0 if unmapped.
  uint64_t module_vaddr = 0;
  bool has_line() const { return !frames.empty() && frames[0].line > 0; }
};

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;
  bool executable = false;
  std::string path;  // "" for anonymous, "[vdso]" etc. for special
  // The kernel appended " (deleted)": the file was unlinked (or replaced)
  // while mapped. `path` has the suffix removed.
  bool deleted = false;
};

class ProcessMaps {
 public:
  static ProcessMaps parse(std::string_view text);
  const Mapping* find(uint64_t address) const;
  const std::vector<Mapping>& mappings() const { return mappings_; }

 private:
  std::vector<Mapping> mappings_;  // sorted by start
};

class Module;  // one ELF file with its DWARF (defined in module.h)

class Symbolizer {
 public:
  Symbolizer();
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // `is_return_address`: true for caller frames; the lookup then uses
  // address - 1 so the call instruction's line is reported.
  Location symbolize(const ProcessMaps& maps, uint64_t address,
                     bool is_return_address);

  // The module for an ELF path, opened on first use; nullptr with `error`
  // set if it cannot be read.
  Module* module(const std::string& path, std::string* error = nullptr);

  // Facts for warnings: did this module have DWARF line info?
  struct ModuleInfo {
    std::string path;
    bool opened = false;
    bool has_dwarf = false;
    std::string error;
  };
  std::vector<ModuleInfo> modules_seen() const;

  // Where to look for separate debug info, in elfutils' debuginfo-path
  // syntax; replaces the default ":.debug:/usr/lib/debug" (the file's own
  // directory, its .debug subdirectory, /usr/lib/debug). Absolute entries are
  // searched by .gnu_debuglink name and as <dir>/.build-id/xx/yyyy.debug.
  // Applies to modules opened afterwards.
  void set_debuginfo_path(std::string path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_SYMBOLIZER_H_
