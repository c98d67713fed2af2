// patch_sites.cc: the enclosing function of each probe site (ELF symbols)
// and its code, handed to plan_patch.
#include "probes/patch_sites.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fstream>

namespace andweorc::probes {
namespace {

struct Symbol {
  std::string name;
  uint64_t vaddr, size;
};

// "f.cold", "f.cold.3" and "f.part.0.cold" -> the name they were split from.
std::string base_of(const std::string& name) {
  size_t cold = name.find(".cold");
  return cold == std::string::npos ? name : name.substr(0, cold);
}

struct ElfCode {
  std::vector<Symbol> functions;
  struct Load {
    uint64_t vaddr, offset, filesz;
  };
  std::vector<Load> loads;
  std::string error;
};

ElfCode read_elf(const std::string& path) {
  ElfCode out;
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    out.error = "cannot open " + path;
    return out;
  }
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf == nullptr) {
    close(fd);
    out.error = "not an ELF file: " + path;
    return out;
  }
  size_t phnum = 0;
  elf_getphdrnum(elf, &phnum);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf, int(i), &ph) && ph.p_type == PT_LOAD &&
        (ph.p_flags & PF_X))
      out.loads.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
  }
  for (Elf32_Word wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != wanted) continue;
      Elf_Data* data = elf_getdata(scn, nullptr);
      size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
      for (size_t i = 0; data && i < count; ++i) {
        GElf_Sym sym;
        if (gelf_getsym(data, int(i), &sym) == nullptr) continue;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 ||
            sym.st_shndx == SHN_UNDEF)
          continue;
        const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
        out.functions.push_back({name ? name : "", sym.st_value, sym.st_size});
      }
    }
    if (!out.functions.empty()) break;
  }
  elf_end(elf);
  close(fd);
  if (out.functions.empty())
    out.error = "no function symbols in " + path + " (stripped?)";
  return out;
}

bool read_code(std::ifstream& file, const ElfCode& elf, const Symbol& sym,
               CodeRange* range) {
  for (const auto& l : elf.loads)
    if (sym.vaddr >= l.vaddr && sym.vaddr + sym.size <= l.vaddr + l.filesz) {
      range->vaddr = sym.vaddr;
      range->bytes.resize(sym.size);
      file.clear();
      file.seekg(std::streamoff(sym.vaddr - l.vaddr + l.offset));
      file.read(reinterpret_cast<char*>(range->bytes.data()),
                std::streamsize(sym.size));
      return size_t(file.gcount()) == sym.size;
    }
  return false;
}

}  // namespace

namespace {

// The enclosing function of `vaddr` and its split parts, from `elf`.
bool enclosing_code(const ElfCode& elf, std::ifstream& file, uint64_t vaddr,
                    CodeRange* function, std::vector<CodeRange>* others,
                    std::string* name, std::string* error) {
  if (!elf.error.empty()) {
    *error = elf.error;
    return false;
  }
  const Symbol* enclosing = nullptr;
  for (const auto& f : elf.functions)
    if (vaddr >= f.vaddr && vaddr < f.vaddr + f.size) {
      enclosing = &f;
      break;
    }
  if (enclosing == nullptr) {
    *error = "no function symbol covers the address";
    return false;
  }
  *name = enclosing->name;
  function->is_entry = enclosing->name.find(".cold") == std::string::npos;
  if (!read_code(file, elf, *enclosing, function)) {
    *error = "cannot read the code of " + enclosing->name;
    return false;
  }
  std::string base = base_of(enclosing->name);
  for (const auto& f : elf.functions)
    if (f.vaddr != enclosing->vaddr && !base.empty() &&
        base_of(f.name) == base) {
      CodeRange part;
      part.is_entry = false;
      if (!read_code(file, elf, f, &part)) {
        *error = "cannot read the split parts of " + base;
        return false;
      }
      others->push_back(std::move(part));
    }
  return true;
}

}  // namespace

bool function_code(const std::string& path, uint64_t vaddr, CodeRange* function,
                   std::vector<CodeRange>* others, std::string* name,
                   std::string* error) {
  ElfCode elf = read_elf(path);
  std::ifstream file(path, std::ios::binary);
  return enclosing_code(elf, file, vaddr, function, others, name, error);
}

void plan_patches(const std::string& path, std::vector<ProbeSite>* sites) {
  ElfCode elf = read_elf(path);
  std::ifstream file(path, std::ios::binary);
  for (auto& site : *sites) {
    site.patch.clear();
    site.patch_refused.clear();
    CodeRange function;
    std::vector<CodeRange> others;
    std::string name, error;
    if (!enclosing_code(elf, file, site.vaddr, &function, &others, &name,
                        &error)) {
      site.patch_refused = error;
      continue;
    }
    PatchPlan plan = plan_patch(function, others, site.vaddr);
    if (plan.ok)
      site.patch = encode_patch(plan);
    else
      site.patch_refused = plan.refusal + " (in " + name + ")";
  }
}

}  // namespace andweorc::probes
