// attach_points.cc: see attach_points.h.
#include "runtime/attach_points.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace andweorc::runtime {
namespace {

// andweorc.h's andweorc_site_t.
struct Site {
  const char* name;
  int kind;
  int id;
};

struct Object {
  std::string path;
  uintptr_t bias = 0;
  std::vector<std::pair<uintptr_t, uintptr_t>> writable;  // [start, end)
};

bool is_site(const char* name) {
  return strstr(name, "andweorc_site_") != nullptr ||
         strstr(name, "andweorc_begin_site_") != nullptr ||
         strstr(name, "andweorc_end_site_") != nullptr;
}

bool is_lookup_flag(const char* name) {
  if (strstr(name, "andweorc_looked_up_") != nullptr) return true;
  // C++ code built with headers before the flag had that name.
  return strstr(name, "andweorc_hit_slow_") != nullptr &&
         strstr(name, "looked_up") != nullptr;
}

bool inside(const Object& o, uintptr_t a, size_t size) {
  for (const auto& [start, end] : o.writable)
    if (a >= start && a + size <= end) return true;
  return false;
}

// The objects' files and writable segments (read before any file is
// opened: dl_iterate_phdr holds the loader's lock).
std::vector<Object> loaded_objects() {
  std::vector<Object> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* objects = static_cast<std::vector<Object>*>(data);
        Object o;
        const bool unnamed = info->dlpi_name == nullptr || !*info->dlpi_name;
        // The first entry is the program; another without a name has no
        // file to read.
        if (unnamed && !objects->empty()) return 0;
        o.path = unnamed ? "/proc/self/exe" : info->dlpi_name;
        o.bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W))
            o.writable.push_back(
                {o.bias + ph.p_vaddr, o.bias + ph.p_vaddr + ph.p_memsz});
        }
        if (!o.writable.empty()) objects->push_back(std::move(o));
        return 0;
      },
      &out);
  return out;
}

// Calls f(name, address, size) for every data object in the file's .symtab.
template <typename F>
void for_each_object_symbol(const Object& o, F f) {
  int fd = open(o.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st;
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && size_t(st.st_size) >= sizeof(ElfW(Ehdr)))
    map = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return;
  const auto* base = static_cast<const char*>(map);
  const size_t size = size_t(st.st_size);
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
  auto fits = [&](uint64_t off, uint64_t len) {
    return off <= size && len <= size - off;
  };
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
      eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shentsize == sizeof(ElfW(Shdr)) &&
      fits(eh->e_shoff, uint64_t(eh->e_shnum) * sizeof(ElfW(Shdr)))) {
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(base + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
      const ElfW(Shdr)& strs = sh[sh[i].sh_link];
      if (!fits(sh[i].sh_offset, sh[i].sh_size) ||
          !fits(strs.sh_offset, strs.sh_size) || strs.sh_size == 0)
        continue;
      const auto* syms =
          reinterpret_cast<const ElfW(Sym)*>(base + sh[i].sh_offset);
      const char* names = base + strs.sh_offset;
      for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
        if (ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT ||
            syms[k].st_name >= strs.sh_size || syms[k].st_shndx == SHN_UNDEF)
          continue;
        const char* name = names + syms[k].st_name;
        if (memchr(name, '\0', strs.sh_size - syms[k].st_name) == nullptr)
          continue;
        f(name, o.bias + syms[k].st_value, size_t(syms[k].st_size));
      }
    }
  }
  munmap(map, size);
}

}  // namespace

RevivedPoints revive_header_points() {
  RevivedPoints revived;
  std::vector<Site*> sites;
  for (const Object& o : loaded_objects()) {
    for_each_object_symbol(o, [&](const char* name, uintptr_t a, size_t n) {
      if (n == sizeof(int) && is_lookup_flag(name) && inside(o, a, n)) {
        int* flag = reinterpret_cast<int*>(a);
        int one = 1;
        if (__atomic_compare_exchange_n(flag, &one, 0, false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
          ++revived.lookups;
      } else if (n == sizeof(Site) && is_site(name) && inside(o, a, n)) {
        sites.push_back(reinterpret_cast<Site*>(a));
      }
    });
  }
  // Every flag first (attach_points.h), then the sites.
  for (Site* s : sites) {
    const int kind = __atomic_load_n(&s->kind, __ATOMIC_RELAXED);
    int dead = -1;
    if (kind >= 1 && kind <= 3 &&
        __atomic_compare_exchange_n(&s->id, &dead, 0, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
      ++revived.sites;
  }
  return revived;
}

void revive_header_points_with_note() {
  const RevivedPoints r = revive_header_points();
  if (r.sites == 0 && r.lookups == 0) return;
  char note[256];
  snprintf(note, sizeof note,
           "attach: %d progress point(s) of andweorc.h that the program "
           "reached before the attach count from now on (%d lookup(s) "
           "redone)",
           r.sites, r.lookups);
  runtime_write_note_bounded(note);
}

}  // namespace andweorc::runtime
