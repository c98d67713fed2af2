// target_symbols.h: where a function of a shared library is in another
// process: the library's load address from that process's /proc/PID/maps,
// plus the symbol's value in the file's dynamic symbol table (libelf).
// Pure of the target: takes a maps snapshot and reads only the file.
#ifndef ANDWEORC_ATTACH_TARGET_SYMBOLS_H_
#define ANDWEORC_ATTACH_TARGET_SYMBOLS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "symbols/symbolizer.h"

namespace andweorc::attach {

// What the ELF file at `path` says about one defined dynamic symbol.
struct ElfSymbol {
  uint64_t value = 0;       // st_value (file-relative for ET_DYN)
  uint64_t first_load = 0;  // page-aligned p_vaddr of the PT_LOAD at offset 0
};

// The default version of `name` among the defined functions/objects of the
// file's .dynsym (dlopen@@GLIBC_2.34 rather than a hidden compat version).
// An IFUNC is refused (its value is a resolver, not the function).
std::optional<ElfSymbol> dynamic_symbol(const std::string& path,
                                        std::string_view name,
                                        std::string* error);

// The path of the first file mapped in `maps` whose base name starts with
// `prefix` ("libc.so." matches libc.so.6), or "".
std::string mapped_module(const symbols::ProcessMaps& maps,
                          std::string_view prefix);

// The lowest address at which `path` is mapped at file offset 0, if any.
std::optional<uint64_t> module_start(const symbols::ProcessMaps& maps,
                                     const std::string& path);

// Address of `name` of the module `path` in the process `maps` describes:
// module_start - first_load + value. nullopt with *error set when the
// module is not mapped or the symbol is missing.
std::optional<uint64_t> symbol_address(const symbols::ProcessMaps& maps,
                                       const std::string& path,
                                       std::string_view name,
                                       std::string* error);

}  // namespace andweorc::attach

#endif  // ANDWEORC_ATTACH_TARGET_SYMBOLS_H_
