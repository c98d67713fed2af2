// patch_sites.cc: the enclosing function of each probe site (ELF symbols)
// and its code, handed to plan_patch.
#include "probes/patch_sites.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fstream>

#include "probes/patch_plan.h"

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

void plan_patches(const std::string& path, std::vector<ProbeSite>* sites) {
  ElfCode elf = read_elf(path);
  std::ifstream file(path, std::ios::binary);
  for (auto& site : *sites) {
    site.patch.clear();
    site.patch_refused.clear();
    if (!elf.error.empty()) {
      site.patch_refused = elf.error;
      continue;
    }
    const Symbol* enclosing = nullptr;
    for (const auto& f : elf.functions)
      if (site.vaddr >= f.vaddr && site.vaddr < f.vaddr + f.size) {
        enclosing = &f;
        break;
      }
    if (enclosing == nullptr) {
      site.patch_refused = "no function symbol covers the address";
      continue;
    }
    CodeRange function;
    function.is_entry = enclosing->name.find(".cold") == std::string::npos;
    if (!read_code(file, elf, *enclosing, &function)) {
      site.patch_refused = "cannot read the code of " + enclosing->name;
      continue;
    }
    std::vector<CodeRange> others;
    std::string base = base_of(enclosing->name);
    bool ok = true;
    for (const auto& f : elf.functions)
      if (f.vaddr != enclosing->vaddr && !base.empty() &&
          base_of(f.name) == base) {
        CodeRange part;
        ok = ok && read_code(file, elf, f, &part);
        others.push_back(std::move(part));
      }
    if (!ok) {
      site.patch_refused = "cannot read the split parts of " + base;
      continue;
    }
    PatchPlan plan = plan_patch(function, others, site.vaddr);
    if (plan.ok)
      site.patch = encode_patch(plan);
    else
      site.patch_refused = plan.refusal + " (in " + enclosing->name + ")";
  }
}

}  // namespace andweorc::probes
