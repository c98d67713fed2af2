// module.cc: one ELF file via libdwfl's offline reporting; answers lookups
// from lazily built per-CU inline indexes and libdw line tables.
#include "symbols/module.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "symbols/demangle.h"

namespace andweorc::symbols {
namespace {

std::string dwfl_error() {
  const char* msg = dwfl_errmsg(-1);
  return msg ? msg : "unknown libdwfl error";
}

const char* string_attr(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attr;
  // _integrate follows DW_AT_abstract_origin and DW_AT_specification, so
  // inlined and out-of-line instances get their declaration's names.
  return dwarf_formstring(dwarf_attr_integrate(die, name, &attr));
}

}  // namespace

std::unique_ptr<Module> Module::open(const std::string& path,
                                     const std::string& debuginfo_path,
                                     std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;

  // Check readability ourselves: libdwfl's messages for a missing file or a
  // directory are less clear than errno.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  ::close(fd);
  if (!regular) {
    *error = path + " is not a regular file";
    return nullptr;
  }

  std::unique_ptr<Module> m(new Module);
  m->path_ = path;
  m->debuginfo_path_ = debuginfo_path;
  m->callbacks_.find_elf = dwfl_build_id_find_elf;
  m->callbacks_.find_debuginfo = dwfl_standard_find_debuginfo;
  m->callbacks_.section_address = dwfl_offline_section_address;
  if (!m->debuginfo_path_.empty()) {
    m->debuginfo_path_cstr_ = m->debuginfo_path_.data();
    m->callbacks_.debuginfo_path = &m->debuginfo_path_cstr_;
  }
  // One Dwfl per module keeps modules independent (and each at the bias
  // libdwfl picks for a lone offline module).
  m->dwfl_ = dwfl_begin(&m->callbacks_);
  if (m->dwfl_ == nullptr) {
    *error = "dwfl_begin: " + dwfl_error();
    return nullptr;
  }
  std::string name = path.substr(path.rfind('/') + 1);
  m->mod_ = dwfl_report_offline(m->dwfl_, name.c_str(), path.c_str(), -1);
  if (m->mod_ == nullptr) {
    *error = path + ": " + dwfl_error();
    return nullptr;
  }
  dwfl_report_end(m->dwfl_, nullptr, nullptr);

  Elf* elf = dwfl_module_getelf(m->mod_, &m->elf_bias_);
  if (elf == nullptr) {
    *error = path + ": " + dwfl_error();
    return nullptr;
  }
  size_t phnum = 0;
  if (elf_getphdrnum(elf, &phnum) == 0) {
    for (size_t i = 0; i < phnum; ++i) {
      GElf_Phdr ph;
      if (gelf_getphdr(elf, static_cast<int>(i), &ph) != nullptr &&
          ph.p_type == PT_LOAD) {
        m->loads_.push_back({ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_vaddr,
                             ph.p_align, (ph.p_flags & PF_X) != 0});
      }
    }
  }
  if (m->loads_.empty()) {
    *error = path + ": no PT_LOAD segments (not an executable or library)";
    return nullptr;
  }
  // Null when there is no DWARF anywhere: lookups then use the symtab.
  m->dwarf_ = dwfl_module_getdwarf(m->mod_, &m->dwarf_bias_);
  return m;
}

Module::~Module() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

std::string Module::build_id() const {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  int n = dwfl_module_build_id(mod_, &bits, &vaddr);
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (int i = 0; i < n; ++i) {
    hex += kHex[bits[i] >> 4];
    hex += kHex[bits[i] & 15];
  }
  return hex;
}

std::vector<std::pair<uint64_t, uint64_t>> Module::executable_ranges() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const Segment& s : loads_)
    if (s.executable) out.emplace_back(s.vaddr, s.vaddr + s.memsz);
  return out;
}

bool Module::file_offset_to_vaddr(uint64_t offset, uint64_t* vaddr) const {
  // File-backed bytes first; then the page-aligned slack around a segment,
  // which the kernel maps too (offsets in /proc/pid/maps are page-aligned).
  for (const Segment& s : loads_) {
    if (offset >= s.offset && offset - s.offset < s.filesz) {
      *vaddr = s.vaddr + (offset - s.offset);
      return true;
    }
  }
  for (const Segment& s : loads_) {
    uint64_t align = s.align > 1 ? s.align : 4096;
    uint64_t first = s.offset & ~(align - 1);
    uint64_t last = s.offset + std::max(s.filesz, s.memsz);
    if (offset < first || offset >= last) continue;
    if (offset < s.offset && s.offset - offset > s.vaddr) continue;
    {
      *vaddr = s.vaddr - s.offset + offset;
      return true;
    }
  }
  return false;
}

void Module::load_units() {
  units_loaded_ = true;
  if (dwarf_ == nullptr) return;
  Dwarf_CU* cu = nullptr;
  Dwarf_CU* next = nullptr;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  Dwarf_Die cudie, subdie;
  while (dwarf_get_units(dwarf_, cu, &next, &version, &unit_type, &cudie,
                         &subdie) == 0) {
    cu = next;
    // Type units own no code. A skeleton's split unit (subdie) holds the
    // DIEs; when its .dwo is missing, the skeleton still gives lines.
    Dwarf_Die code_die = cudie;
    if (unit_type == DW_UT_skeleton) {
      if (dwarf_tag(&subdie) == DW_TAG_compile_unit) code_die = subdie;
    } else if (unit_type != DW_UT_compile && unit_type != DW_UT_partial) {
      continue;
    }
    size_t id = units_.size();
    bool has_range = false;
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
      if (lo < hi) {
        cu_ranges_.push_back({lo, hi, id});
        has_range = true;
      }
    }
    // Our own CU range table (rather than dwfl_module_addrdie) also works
    // without .debug_aranges, which clang does not emit by default.
    if (has_range) units_.push_back({cudie, code_die, nullptr, {}});
  }
  std::sort(cu_ranges_.begin(), cu_ranges_.end(),
            [](const CuRange& a, const CuRange& b) { return a.lo < b.lo; });
}

Module::CompileUnit* Module::unit_for(Dwarf_Addr dwarf_addr) {
  if (!units_loaded_) load_units();
  auto it =
      std::upper_bound(cu_ranges_.begin(), cu_ranges_.end(), dwarf_addr,
                       [](Dwarf_Addr a, const CuRange& r) { return a < r.lo; });
  if (it == cu_ranges_.begin()) return nullptr;
  --it;
  return dwarf_addr < it->hi ? &units_[it->cu] : nullptr;
}

InlineIndex& Module::index_of(CompileUnit& cu) {
  if (cu.index == nullptr) {
    cu.index = std::make_unique<InlineIndex>(InlineIndex::build(&cu.code_die));
  }
  return *cu.index;
}

const std::string& Module::die_name(CompileUnit& cu, Dwarf_Off off) {
  auto [it, inserted] = cu.names.try_emplace(off);
  if (!inserted) return it->second;
  Dwarf_Die die;
  Dwarf* dwarf = dwarf_cu_getdwarf(cu.code_die.cu);
  if (dwarf == nullptr || dwarf_offdie(dwarf, off, &die) == nullptr) {
    return it->second;
  }
  const char* linkage = string_attr(&die, DW_AT_linkage_name);
  if (linkage == nullptr) linkage = string_attr(&die, DW_AT_MIPS_linkage_name);
  if (linkage != nullptr) {
    it->second = demangle(linkage);
  } else if (const char* name = string_attr(&die, DW_AT_name)) {
    it->second = name;
  }
  return it->second;
}

std::string Module::symtab_name(uint64_t vaddr) {
  GElf_Off offset = 0;
  GElf_Sym sym;
  const char* name = dwfl_module_addrinfo(mod_, vaddr + elf_bias_, &offset,
                                          &sym, nullptr, nullptr, nullptr);
  return name ? demangle(name) : std::string();
}

std::string Module::call_file(CompileUnit& cu, uint32_t index) {
  Dwarf_Files* files = nullptr;
  size_t count = 0;
  if (dwarf_getsrcfiles(&cu.die, &files, &count) != 0 || index >= count) {
    return {};
  }
  const char* name = dwarf_filesrc(files, index, nullptr, nullptr);
  return name ? name : "";
}

std::vector<Frame> Module::lookup(uint64_t vaddr) {
  std::vector<Frame> frames;
  CompileUnit* cu = nullptr;
  Dwarf_Addr addr = vaddr + elf_bias_ - dwarf_bias_;
  if (dwarf_ != nullptr) cu = unit_for(addr);
  if (cu == nullptr) {
    frames.push_back(Frame{symtab_name(vaddr), "", 0, false});
    return frames;
  }

  // The innermost frame's line is the line table's; each outer frame's line
  // is the call site recorded on the inlined subroutine it contains.
  Frame current;
  if (Dwarf_Line* line = dwarf_getsrc_die(&cu->die, addr)) {
    int lineno = 0;
    dwarf_lineno(line, &lineno);
    const char* file = dwarf_linesrc(line, nullptr, nullptr);
    current.line = lineno;
    current.file = file ? file : "";
  }
  InlineIndex& index = index_of(*cu);
  int32_t e = index.innermost(addr);
  while (e >= 0) {
    const InlineEntry& entry = index.entry(e);
    current.function = die_name(*cu, entry.die);
    current.inlined = entry.inlined;
    frames.push_back(std::move(current));
    if (!entry.inlined) break;
    current = Frame{};
    current.file = call_file(*cu, entry.call_file);
    current.line = entry.call_line;
    e = entry.parent;
  }
  // No enclosing function DIE (e.g. assembly), or an inlined call without
  // its concrete caller (malformed DWARF): the symtab names the function.
  if (frames.empty() || frames.back().inlined) {
    // `current` holds a frame not pushed yet: the loop moved it only when
    // it then either reset it (an inlined frame) or stopped at a concrete
    // one, which this condition excludes.
    // NOLINTNEXTLINE(bugprone-use-after-move)
    frames.push_back(std::move(current));
  }
  if (frames.back().function.empty()) {
    frames.back().function = symtab_name(vaddr);
  }
  return frames;
}

void Module::load_all() {
  load_line_tables();
  load_inline_index();
}

void Module::load_line_tables() {
  if (!units_loaded_) load_units();
  for (CompileUnit& cu : units_) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    dwarf_getsrclines(&cu.die, &lines, &count);  // cached inside libdw
  }
}

void Module::load_inline_index() {
  if (!units_loaded_) load_units();
  for (CompileUnit& cu : units_) index_of(cu);
}

void Module::for_each_line_range(
    const std::function<void(std::string_view, int, uint64_t, uint64_t)>& fn) {
  if (!units_loaded_) load_units();
  for (CompileUnit& cu : units_) {
    Dwarf_Lines* lines = nullptr;
    size_t count = 0;
    if (dwarf_getsrclines(&cu.die, &lines, &count) != 0) continue;
    std::string_view file;
    int line = 0;
    uint64_t lo = 0, hi = 0;
    bool pending = false;
    auto flush = [&] {
      if (pending) fn(file, line, lo, hi);
      pending = false;
    };
    for (size_t i = 0; i + 1 < count; ++i) {
      Dwarf_Line* row = dwarf_onesrcline(lines, i);
      Dwarf_Line* next = dwarf_onesrcline(lines, i + 1);
      bool end = false;
      Dwarf_Addr a = 0, b = 0;
      int n = 0;
      if (row == nullptr || next == nullptr ||
          dwarf_lineendsequence(row, &end) != 0 || end ||
          dwarf_lineaddr(row, &a) != 0 || dwarf_lineaddr(next, &b) != 0 ||
          dwarf_lineno(row, &n) != 0 || n <= 0 || a >= b) {
        continue;
      }
      const char* f = dwarf_linesrc(row, nullptr, nullptr);
      if (f == nullptr) continue;
      uint64_t va = a + dwarf_bias_ - elf_bias_;
      uint64_t vb = b + dwarf_bias_ - elf_bias_;
      if (pending && line == n && hi == va && file == f) {
        hi = vb;
        continue;
      }
      flush();
      file = f;
      line = n;
      lo = va;
      hi = vb;
      pending = true;
    }
    flush();
  }
}

Module::Stats Module::stats() const {
  Stats s;
  s.compile_units = units_.size();
  for (const CompileUnit& cu : units_) {
    if (cu.index == nullptr) continue;
    ++s.indexed_units;
    s.inline_entries += cu.index->entry_count();
  }
  return s;
}

}  // namespace andweorc::symbols
