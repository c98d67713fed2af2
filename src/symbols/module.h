// module.h: one ELF file opened offline through libdwfl: load bias, file
// offset -> vaddr, address -> inline chain and line, symtab fallback.
#ifndef ANDWEORC_SYMBOLS_MODULE_H_
#define ANDWEORC_SYMBOLS_MODULE_H_

#include <elfutils/libdwfl.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbols/inline_index.h"
#include "symbols/symbolizer.h"

namespace andweorc::symbols {

// Not thread-safe: lookups fill lazy caches.
class Module {
 public:
  // Opens `path`; nullptr with `error` set when the file is missing, not a
  // regular file, not ELF, or has no loadable segments. `debuginfo_path` is
  // elfutils' search path for separate debug info ("" = elfutils default).
  static std::unique_ptr<Module> open(const std::string& path,
                                      const std::string& debuginfo_path,
                                      std::string* error);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& path() const { return path_; }
  // True when DWARF (in the file or a separate debug file) was found.
  bool has_dwarf() const { return dwarf_ != nullptr; }

  // The GNU build-id in lower-case hex; "" when the file has none.
  std::string build_id() const;
  // The ELF vaddr ranges [lo, hi) of the executable PT_LOAD segments: where
  // the loader maps code.
  std::vector<std::pair<uint64_t, uint64_t>> executable_ranges() const;

  // File offset (as in /proc/pid/maps: address - start + offset) -> address
  // in the ELF's own vaddr space, through the PT_LOAD program headers.
  bool file_offset_to_vaddr(uint64_t offset, uint64_t* vaddr) const;

  // ELF vaddr -> frames, innermost first; always at least one frame. Function
  // names come from DWARF, else from the ELF symbol table; "" if unknown.
  std::vector<Frame> lookup(uint64_t vaddr);

  // Eagerly parses every CU's line table and builds every CU's inline index
  // (what lookups otherwise do lazily, per CU).
  void load_all();
  // The two halves of load_all(), for measuring them apart.
  void load_line_tables();
  void load_inline_index();

  // Calls fn(file, line, lo, hi) for each line-table address range [lo, hi)
  // in ELF vaddr space; adjacent rows with the same file:line are merged.
  // Rows with line 0 (compiler-generated code) are skipped.
  void for_each_line_range(
      const std::function<void(std::string_view file, int line, uint64_t lo,
                               uint64_t hi)>& fn);

  struct Stats {
    size_t compile_units = 0;   // CUs with code ranges
    size_t indexed_units = 0;   // CUs whose inline index is built
    size_t inline_entries = 0;  // functions + inlined calls indexed
  };
  Stats stats() const;

 private:
  struct CompileUnit {
    Dwarf_Die die;  // CU (or split-DWARF skeleton): ranges and line table
    // Where the function DIEs live: `die` itself, or for split DWARF the
    // split unit in the .dwo file (a different Dwarf).
    Dwarf_Die code_die;
    std::unique_ptr<InlineIndex> index;                // built on first use
    std::unordered_map<Dwarf_Off, std::string> names;  // by entry DIE offset
  };
  struct CuRange {
    Dwarf_Addr lo;
    Dwarf_Addr hi;  // exclusive
    size_t cu;
  };

  Module() = default;
  void load_units();
  CompileUnit* unit_for(Dwarf_Addr dwarf_addr);
  InlineIndex& index_of(CompileUnit& cu);
  const std::string& die_name(CompileUnit& cu, Dwarf_Off die);
  std::string symtab_name(uint64_t vaddr);
  std::string call_file(CompileUnit& cu, uint32_t index);

  std::string path_;
  std::string debuginfo_path_;
  char* debuginfo_path_cstr_ = nullptr;  // libdwfl wants a char**
  Dwfl_Callbacks callbacks_{};
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* mod_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  Dwarf_Addr elf_bias_ = 0;    // libdwfl address = ELF vaddr + elf_bias_
  Dwarf_Addr dwarf_bias_ = 0;  // libdwfl address = DWARF address + dwarf_bias_

  struct Segment {
    uint64_t offset, filesz, memsz, vaddr, align;
    bool executable;
  };
  std::vector<Segment> loads_;

  bool units_loaded_ = false;
  std::vector<CompileUnit> units_;
  std::vector<CuRange> cu_ranges_;  // sorted by lo
};

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_MODULE_H_
