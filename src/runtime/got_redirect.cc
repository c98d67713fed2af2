// got_redirect.cc: see got_redirect.h for what is rewritten and why it is
// safe while the program's threads run.
#include "runtime/got_redirect.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "runtime/proc_text.h"

namespace andweorc::runtime {
namespace {

constexpr int kUnversionedBit = 63;  // accepted_: a reference without version

struct Range {
  uintptr_t start, end;
  bool writable;
};

// /proc/self/maps as address ranges and whether each is writable. Read
// before the walk: the walk holds the loader's lock.
std::vector<Range> read_maps() {
  std::vector<Range> out;
  const std::string text = read_proc_text("/proc/self/maps");
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const char* line = text.c_str() + pos;
    char* p = nullptr;
    uintptr_t start = strtoull(line, &p, 16);
    uintptr_t end = (*p == '-') ? strtoull(p + 1, &p, 16) : 0;
    if (end > start && *p == ' ') out.push_back({start, end, p[2] == 'w'});
    pos = eol + 1;
  }
  return out;
}

// Every byte of [start, end) is mapped and not writable: ld.so has applied
// RELRO, so it is done relocating the object.
bool read_only(const std::vector<Range>& maps, uintptr_t start, uintptr_t end) {
  for (const Range& r : maps) {
    if (start >= end) break;
    if (r.end <= start || r.start > start) continue;
    if (r.writable) return false;
    start = r.end;
  }
  return start >= end;
}

// A dynamic-section pointer: ld.so relocates most of them in place (not
// those of the vdso or of an object it keeps read-only).
uintptr_t dyn_ptr(uintptr_t value, uintptr_t base) {
  return value < base ? value + base : value;
}

bool contains(const dl_phdr_info* info, const void* address) {
  auto a = reinterpret_cast<uintptr_t>(address);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && a >= start && a < start + ph.p_memsz)
      return true;
  }
  return false;
}

bool is_loader(const char* name, const std::string& interp) {
  if (name == nullptr || *name == '\0') return false;
  if (!interp.empty() && interp == name) return true;
  const char* base = strrchr(name, '/');
  base = base ? base + 1 : name;
  return strncmp(base, "ld-linux", 8) == 0 || strncmp(base, "ld64.so", 7) == 0;
}

}  // namespace

// The tables of one loaded object's dynamic section that the walk reads.
struct DynamicTables {
  const ElfW(Sym) * symtab = nullptr;
  const char* strtab = nullptr;
  const ElfW(Rela) * jmprel = nullptr;  // PLT relocations (JUMP_SLOT)
  size_t jmprel_size = 0;
  const ElfW(Rela) * rela = nullptr;  // the others (GLOB_DAT among them)
  size_t rela_size = 0;
  const ElfW(Half) * versym = nullptr;
  const ElfW(Verneed) * verneed = nullptr;
  const ElfW(Verdef) * verdef = nullptr;  // versions this object defines
};

namespace {

DynamicTables read_dynamic(const ElfW(Dyn) * dynamic, uintptr_t base) {
  DynamicTables t;
  bool plt_is_rela = true;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    const uintptr_t p = dyn_ptr(d->d_un.d_ptr, base);
    switch (d->d_tag) {
      case DT_SYMTAB:
        t.symtab = reinterpret_cast<const ElfW(Sym)*>(p);
        break;
      case DT_STRTAB:
        t.strtab = reinterpret_cast<const char*>(p);
        break;
      case DT_JMPREL:
        t.jmprel = reinterpret_cast<const ElfW(Rela)*>(p);
        break;
      case DT_PLTRELSZ:
        t.jmprel_size = d->d_un.d_val;
        break;
      case DT_PLTREL:
        plt_is_rela = d->d_un.d_val == DT_RELA;
        break;
      case DT_RELA:
        t.rela = reinterpret_cast<const ElfW(Rela)*>(p);
        break;
      case DT_RELASZ:
        t.rela_size = d->d_un.d_val;
        break;
      case DT_VERSYM:
        t.versym = reinterpret_cast<const ElfW(Half)*>(p);
        break;
      case DT_VERNEED:
        t.verneed = reinterpret_cast<const ElfW(Verneed)*>(p);
        break;
      case DT_VERDEF:
        t.verdef = reinterpret_cast<const ElfW(Verdef)*>(p);
        break;
      default:
        break;
    }
  }
  if (!plt_is_rela) t.jmprel_size = 0;  // not x86-64's layout
  return t;
}

// The name of the version a reference to symbol `sym` asks for; nullptr
// for an unversioned reference, "" when the tables do not say.
const char* version_name(const DynamicTables& t, size_t sym) {
  const unsigned ndx = t.versym ? (t.versym[sym] & 0x7fff) : 0;
  if (ndx < 2) return nullptr;
  for (const ElfW(Verneed)* vn = t.verneed; vn != nullptr;) {
    const auto* aux = reinterpret_cast<const ElfW(Vernaux)*>(
        reinterpret_cast<const char*>(vn) + vn->vn_aux);
    for (unsigned k = 0; k < vn->vn_cnt; ++k) {
      if (aux->vna_other == ndx) return t.strtab + aux->vna_name;
      if (aux->vna_next == 0) break;
      aux = reinterpret_cast<const ElfW(Vernaux)*>(
          reinterpret_cast<const char*>(aux) + aux->vna_next);
    }
    vn = vn->vn_next ? reinterpret_cast<const ElfW(Verneed)*>(
                           reinterpret_cast<const char*>(vn) + vn->vn_next)
                     : nullptr;
  }
  return "";
}

// Where one object's dynamic section and RELRO pages are.
struct ObjectLayout {
  const ElfW(Dyn) * dynamic = nullptr;
  uintptr_t relro_start = 0, relro_end = 0;  // whole pages, as ld.so rounds
  const char* interp = nullptr;              // PT_INTERP, if it has one
};

ObjectLayout read_layout(const dl_phdr_info* info) {
  ObjectLayout o;
  const uintptr_t base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_DYNAMIC)
      o.dynamic = reinterpret_cast<const ElfW(Dyn)*>(base + ph.p_vaddr);
    if (ph.p_type == PT_INTERP)
      o.interp = reinterpret_cast<const char*>(base + ph.p_vaddr);
    if (ph.p_type == PT_GNU_RELRO) {
      const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
      o.relro_start = (base + ph.p_vaddr) & ~(page - 1);
      o.relro_end = (base + ph.p_vaddr + ph.p_memsz) & ~(page - 1);
    }
  }
  return o;
}

}  // namespace

struct GotRedirect::Walk {
  GotRedirect* self;
  bool redirect;
  std::vector<Range> maps;
  std::string interp;  // the main program's PT_INTERP: ld.so's name
  GotCounts counts;
  std::vector<std::pair<uintptr_t*, uintptr_t>> writes;  // reused per object
  unsigned long long adds = 0, subs = 0;
};

GotRedirect::GotRedirect(std::vector<GotTarget> targets, const void* self)
    : targets_(std::move(targets)), self_(self) {
  std::sort(targets_.begin(), targets_.end(),
            [](const GotTarget& a, const GotTarget& b) {
              return strcmp(a.name, b.name) < 0;
            });
  accepted_.assign(targets_.size(), 0);
}

void GotRedirect::prepare() {
  versions_.clear();
  // The version names the defining object (libc) knows, from its
  // DT_VERDEF chain.
  if (!targets_.empty()) {
    Dl_info info;
    link_map* lm = nullptr;
    if (dladdr1(targets_[0].real, &info, reinterpret_cast<void**>(&lm),
                RTLD_DL_LINKMAP) != 0 &&
        lm != nullptr) {
      const DynamicTables t = read_dynamic(lm->l_ld, lm->l_addr);
      const char* strtab = t.strtab;
      const ElfW(Verdef)* verdef = t.verdef;
      for (; strtab != nullptr && verdef != nullptr;) {
        if (!(verdef->vd_flags & VER_FLG_BASE) && verdef->vd_cnt > 0 &&
            versions_.size() < kUnversionedBit) {
          const auto* aux = reinterpret_cast<const ElfW(Verdaux)*>(
              reinterpret_cast<const char*>(verdef) + verdef->vd_aux);
          versions_.emplace_back(strtab + aux->vda_name);
        }
        if (verdef->vd_next == 0) break;
        verdef = reinterpret_cast<const ElfW(Verdef)*>(
            reinterpret_cast<const char*>(verdef) + verdef->vd_next);
      }
    }
  }
  // Which of them a lazy binding would resolve to each target's `real`.
  for (size_t i = 0; i < targets_.size(); ++i) {
    uint64_t bits = 0;
    if (dlsym(RTLD_DEFAULT, targets_[i].name) == targets_[i].real)
      bits |= uint64_t(1) << kUnversionedBit;
    for (size_t v = 0; v < versions_.size(); ++v)
      if (dlvsym(RTLD_DEFAULT, targets_[i].name, versions_[v].c_str()) ==
          targets_[i].real)
        bits |= uint64_t(1) << v;
    accepted_[i] = bits;
  }
}

GotCounts GotRedirect::apply() { return walk(true); }
GotCounts GotRedirect::restore() { return walk(false); }

bool GotRedirect::objects_changed() const {
  unsigned long long counters[2] = {0, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) {
        auto* c = static_cast<unsigned long long*>(data);
        if (size >=
            offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
          c[0] = info->dlpi_adds;
          c[1] = info->dlpi_subs;
        }
        return 1;  // the counters are the same in every entry
      },
      counters);
  return counters[0] != adds_seen_ || counters[1] != subs_seen_;
}

GotCounts GotRedirect::walk(bool redirect) {
  Walk w;
  w.self = this;
  w.redirect = redirect;
  w.maps = read_maps();
  w.writes.reserve(4096);
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        auto* w = static_cast<Walk*>(data);
        if (size >=
            offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
          w->adds = info->dlpi_adds;
          w->subs = info->dlpi_subs;
        }
        w->self->visit_object(info, *w);
        return 0;
      },
      &w);
  adds_seen_ = w.adds;
  subs_seen_ = w.subs;
  return w.counts;
}

void GotRedirect::visit_object(const dl_phdr_info* info, Walk& w) const {
  const ObjectLayout layout = read_layout(info);
  if (layout.interp != nullptr && w.interp.empty()) w.interp = layout.interp;
  const char* name = info->dlpi_name;
  if (layout.dynamic == nullptr || is_loader(name, w.interp) ||
      (name != nullptr && strncmp(name, "linux-vdso", 10) == 0) ||
      contains(info, self_))
    return;
  ++w.counts.objects;
  const uintptr_t relro_start = layout.relro_start,
                  relro_end = layout.relro_end;
  if (relro_end > relro_start && !read_only(w.maps, relro_start, relro_end)) {
    ++w.counts.unsettled;  // ld.so is still relocating it
    return;
  }
  const DynamicTables tables = read_dynamic(layout.dynamic, info->dlpi_addr);
  if (tables.symtab == nullptr || tables.strtab == nullptr) return;
  w.writes.clear();
  collect_writes(info, tables, tables.jmprel, tables.jmprel_size, w);
  collect_writes(info, tables, tables.rela, tables.rela_size, w);
  if (w.writes.empty()) return;
  bool in_relro = false;
  for (const auto& [slot, value] : w.writes) {
    const auto a = reinterpret_cast<uintptr_t>(slot);
    in_relro = in_relro || (a >= relro_start && a < relro_end);
  }
  // RELRO pages are writable only around our stores, and read-only again
  // after, as ld.so left them.
  if (in_relro &&
      mprotect(reinterpret_cast<void*>(relro_start), relro_end - relro_start,
               PROT_READ | PROT_WRITE) != 0)
    return;
  for (const auto& [slot, value] : w.writes) {
    __atomic_store_n(slot, value, __ATOMIC_RELAXED);
    ++w.counts.written;
    if (w.redirect) ++w.counts.slots;
  }
  if (in_relro)
    mprotect(reinterpret_cast<void*>(relro_start), relro_end - relro_start,
             PROT_READ);
}

int GotRedirect::version_bit(const DynamicTables& tables, size_t sym) const {
  const char* v = version_name(tables, sym);
  if (v == nullptr) return kUnversionedBit;
  for (size_t j = 0; j < versions_.size(); ++j)
    if (versions_[j] == v) return int(j);
  return -1;
}

void GotRedirect::collect_writes(const dl_phdr_info* info,
                                 const DynamicTables& tables,
                                 const ElfW(Rela) * r, size_t bytes,
                                 Walk& w) const {
  const uintptr_t base = info->dlpi_addr;
  for (size_t i = 0; r != nullptr && i < bytes / sizeof(*r); ++i) {
    const unsigned type = ELF64_R_TYPE(r[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
    const size_t sym = ELF64_R_SYM(r[i].r_info);
    const char* symbol = tables.strtab + tables.symtab[sym].st_name;
    auto it = std::lower_bound(targets_.begin(), targets_.end(), symbol,
                               [](const GotTarget& t, const char* s) {
                                 return strcmp(t.name, s) < 0;
                               });
    if (it == targets_.end() || strcmp(it->name, symbol) != 0) continue;
    auto* slot = reinterpret_cast<uintptr_t*>(base + r[i].r_offset);
    const uintptr_t value = __atomic_load_n(slot, __ATOMIC_RELAXED);
    const auto real = reinterpret_cast<uintptr_t>(it->real);
    const auto repl = reinterpret_cast<uintptr_t>(it->replacement);
    if (!w.redirect) {
      if (value == repl) w.writes.push_back({slot, real});
      continue;
    }
    if (value == repl) {
      ++w.counts.slots;
    } else if (value == real) {
      w.writes.push_back({slot, repl});
    } else if (type == R_X86_64_JUMP_SLOT &&
               contains(info, reinterpret_cast<void*>(value))) {
      // Not bound yet: a relocated PLT stub (an unrelocated one lies below
      // the load bias, outside the object). Taken if its version would
      // bind to `real`.
      const int bit = version_bit(tables, sym);
      const size_t index = size_t(it - targets_.begin());
      if (bit >= 0 && (accepted_[index] >> bit & 1))
        w.writes.push_back({slot, repl});
      else
        ++w.counts.elsewhere;
    } else {
      ++w.counts.elsewhere;
    }
  }
}

}  // namespace andweorc::runtime
