// target_symbols.cc: see target_symbols.h.
#include "attach/target_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>

namespace andweorc::attach {
namespace {

// Closes the descriptor and ends the ELF handle on every path out.
struct ElfFile {
  int fd = -1;
  Elf* elf = nullptr;
  ~ElfFile() {
    if (elf) elf_end(elf);
    if (fd >= 0) close(fd);
  }
};

std::optional<uint64_t> first_load_vaddr(Elf* elf) {
  size_t n = 0;
  if (elf_getphdrnum(elf, &n) != 0) return std::nullopt;
  for (size_t i = 0; i < n; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) == nullptr || ph.p_type != PT_LOAD)
      continue;
    uint64_t align = ph.p_align > 1 ? ph.p_align : 4096;
    // Its page-aligned start is what the kernel maps at file offset 0.
    return (ph.p_vaddr - ph.p_offset) & ~(align - 1);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ElfSymbol> dynamic_symbol(const std::string& path,
                                        std::string_view name,
                                        std::string* error) {
  elf_version(EV_CURRENT);
  ElfFile f;
  f.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) {
    *error = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  f.elf = elf_begin(f.fd, ELF_C_READ, nullptr);
  if (f.elf == nullptr || elf_kind(f.elf) != ELF_K_ELF) {
    *error = path + " is not an ELF file";
    return std::nullopt;
  }
  auto load = first_load_vaddr(f.elf);
  if (!load) {
    *error = path + " has no loadable segment";
    return std::nullopt;
  }
  Elf_Scn* dynsym = nullptr;
  Elf_Data* versym = nullptr;
  GElf_Shdr dynsym_header{};
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(f.elf, scn)) != nullptr;) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) continue;
    if (sh.sh_type == SHT_DYNSYM) {
      dynsym = scn;
      dynsym_header = sh;
    } else if (sh.sh_type == SHT_GNU_versym) {
      versym = elf_getdata(scn, nullptr);
    }
  }
  Elf_Data* data = dynsym ? elf_getdata(dynsym, nullptr) : nullptr;
  if (data == nullptr || dynsym_header.sh_entsize == 0) {
    *error = path + " has no dynamic symbol table";
    return std::nullopt;
  }
  size_t count = dynsym_header.sh_size / dynsym_header.sh_entsize;
  std::optional<ElfSymbol> found;
  bool found_default = false;
  for (size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, int(i), &sym) == nullptr) continue;
    if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
    const char* sname = elf_strptr(f.elf, dynsym_header.sh_link, sym.st_name);
    if (sname == nullptr || name != sname) continue;
    int type = GELF_ST_TYPE(sym.st_info);
    if (type == STT_GNU_IFUNC) {
      *error = std::string(name) + " in " + path +
               " is an IFUNC (its address is chosen at load time)";
      return std::nullopt;
    }
    if (type != STT_FUNC && type != STT_OBJECT) continue;
    // Bit 15 of the version index marks a hidden (non-default) version.
    bool is_default = true;
    GElf_Versym v;
    if (versym != nullptr && gelf_getversym(versym, int(i), &v) != nullptr)
      is_default = (v & 0x8000) == 0;
    if (found && (found_default || !is_default)) continue;
    found = ElfSymbol{sym.st_value, *load};
    found_default = is_default;
  }
  if (!found) *error = "no symbol " + std::string(name) + " in " + path;
  return found;
}

std::string mapped_module(const symbols::ProcessMaps& maps,
                          std::string_view prefix) {
  for (const auto& m : maps.mappings()) {
    if (m.path.empty() || m.path[0] != '/') continue;
    std::string_view base = m.path;
    if (size_t slash = base.rfind('/'); slash != std::string_view::npos)
      base.remove_prefix(slash + 1);
    if (base.starts_with(prefix)) return m.path;
  }
  return "";
}

std::optional<uint64_t> module_start(const symbols::ProcessMaps& maps,
                                     const std::string& path) {
  for (const auto& m : maps.mappings())  // sorted by start
    if (m.path == path && m.offset == 0 && !m.deleted) return m.start;
  return std::nullopt;
}

std::optional<uint64_t> symbol_address(const symbols::ProcessMaps& maps,
                                       const std::string& path,
                                       std::string_view name,
                                       std::string* error) {
  auto start = module_start(maps, path);
  if (!start) {
    *error = path + " is not mapped in the process";
    return std::nullopt;
  }
  auto sym = dynamic_symbol(path, name, error);
  if (!sym) return std::nullopt;
  return *start - sym->first_load + sym->value;
}

}  // namespace andweorc::attach
