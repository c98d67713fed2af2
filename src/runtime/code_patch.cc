// code_patch.cc: trampolines near the code, the int3-first write of each
// jump and the SIGTRAP path (see code_patch.h).
//
// Decisions:
//  - Not restored at exit: the process is ending, and restoring means the
//    same racy write again while other threads may still run the code; the
//    trampolines and counters stay mapped until the process is gone.
//  - Live probes (code_patch_install_live, from the coordinator thread while
//    the program runs): each install maps areas of its own, so an area that
//    threads may be running is never made writable again; a removal writes
//    the original bytes back in the same int3-first order and keeps the
//    trampoline and counter mapped (a thread may still be inside it).
//  - A fork child keeps the patch (same code); its counters restart from
//    zero (code_patch_reset_counts). An exec'd image is new code: nothing
//    of this survives it.
//  - One shared counter per site, `lock add` (no per-thread counters): no
//    TLS access in the trampoline (its TLS offset would have to be known
//    when the code is written), a thread exit loses nothing, and a read is
//    one load. Threads hitting the same site contend for one cache line.
#include "runtime/code_patch.h"

#include <link.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

namespace andweorc::runtime {
namespace {

constexpr size_t kPage = 4096;
// An area: trampolines first (read+exec once written), then the counters
// (one cache line each: sites hit by different threads do not share a
// line). The counter is addressed RIP-relative from its trampoline, so both
// live in the same area, within +-2 GB of the code. One area serves every
// site within reach of it; a shared library far from the executable gets
// an area of its own.
constexpr size_t kTrampolineArea = kMaxPatchSites * kTrampolineBytes;
constexpr size_t kCounterStride = 64;
constexpr size_t kCounterArea = kMaxPatchSites * kCounterStride;
constexpr size_t kRegion = kTrampolineArea + kCounterArea;
static_assert(kTrampolineArea % kPage == 0 && kCounterArea % kPage == 0);
// Start-up areas plus one or two per live install (code_patch_install_live).
constexpr int kMaxRegions = 40;

struct Region {
  uint8_t* base;
  int used;  // slots taken
};
Region g_regions[kMaxRegions];
int g_region_count = 0;
// Per site index: its counter (read by probe_hits: one load). An index is
// published (g_sites, release) after its counter is set.
uint64_t* g_counters[kMaxPatchSites];
int g_sites = 0;

// Per site index: where its jump is and the bytes it replaced, for a live
// removal (code_patch_remove). Written and read by the patching thread only
// (start-up, then the coordinator).
struct SiteInfo {
  uint64_t site;
  uint8_t length;  // the plan's displaced bytes (for the overlap check)
  uint8_t original[5];
  bool active;  // the jump is in the code
  int prot;     // the code's page protection
  bool hook;    // a hook trampoline (its counter never moves)
};
SiteInfo g_site_info[kMaxPatchSites];

// Sites being (or once) patched, for the SIGTRAP path: written before the
// int3, read by handlers; entries are never removed (a thread that trapped
// before the jump was complete may be delivered its signal later).
struct Trap {
  uint64_t site;
  uint64_t trampoline;
};
Trap g_traps[kMaxPatchSites];
int g_trap_count = 0;

bool g_sync_core = false;  // membarrier SYNC_CORE registered

bool within_reach(const uint8_t* area, uint64_t site) {
  int64_t distance = int64_t(uint64_t(area) - site);
  return distance > -(int64_t(1) << 31) + int64_t(kRegion) &&
         distance < (int64_t(1) << 31) - int64_t(kRegion);
}

// Maps the region within reach of `site`: the kernel takes a free hint
// address; try 1 MB, 2 MB, ... 1 GB below the code, then above.
uint8_t* map_near(uint64_t site) {
  for (int below = 1; below >= 0; --below)
    for (uint64_t step = uint64_t(1) << 20; step <= (uint64_t(1) << 30);
         step <<= 1) {
      uint64_t hint = below ? site - step : site + step;
      hint &= ~uint64_t(kPage - 1);
      void* p =
          mmap(reinterpret_cast<void*>(hint), kRegion, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      if (within_reach(static_cast<uint8_t*>(p), site))
        return static_cast<uint8_t*>(p);
      munmap(p, kRegion);
    }
  return nullptr;
}

// Serializes every thread's instruction stream after a code write (the
// cross-modifying-code rule of the x86 manuals). Without the membarrier
// (old kernels) the int3-first order still keeps any thread from running a
// torn instruction on current CPUs, as the kernel's own text_poke relies on.
void sync_cores() {
  if (g_sync_core)
    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

struct Segment {
  uint64_t site;
  uint64_t start, end;
  int prot;
};

int find_segment(dl_phdr_info* info, size_t, void* arg) {
  auto* s = static_cast<Segment*>(arg);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uint64_t start = info->dlpi_addr + ph.p_vaddr;
    if (s->site >= start && s->site + kPatchMaxLength <= start + ph.p_memsz) {
      s->start = start;
      s->end = start + ph.p_memsz;
      s->prot = ((ph.p_flags & PF_R) ? PROT_READ : 0) |
                ((ph.p_flags & PF_W) ? PROT_WRITE : 0) |
                ((ph.p_flags & PF_X) ? PROT_EXEC : 0);
      return 1;
    }
  }
  return 0;  // not this object: the next one (a shared library)
}

// The area for a site: one within reach with a free slot, else a new one
// mapped near it; nullptr when neither. Only areas from index `first` on are
// reused (a live install takes none that is executable already).
Region* region_for(uint64_t site, int first = 0) {
  for (int i = first; i < g_region_count; ++i)
    if (g_regions[i].used < kMaxPatchSites &&
        within_reach(g_regions[i].base, site))
      return &g_regions[i];
  if (g_region_count == kMaxRegions) return nullptr;
  uint8_t* base = map_near(site);
  if (base == nullptr) return nullptr;
  g_regions[g_region_count] = Region{base, 0};
  return &g_regions[g_region_count++];
}

}  // namespace

namespace {

// Checks one request and builds its trampoline (the area is still
// writable); returns the trampoline's address, 0 with `why` if refused.
// The checks that need no memory of ours: the site is code of a loaded
// object and holds the bytes the tool planned from. False with r->why.
bool check_site(PatchRequest* r, Segment* seg) {
  const PatchSpec& spec = *r->spec;
  *seg = Segment{r->site, 0, 0, 0};
  dl_iterate_phdr(find_segment, seg);
  if (seg->end == 0 || !(seg->prot & PROT_EXEC)) {
    r->why = "the address is not in the code of a loaded object";
    return false;
  }
  if (memcmp(reinterpret_cast<const void*>(r->site), spec.original,
             spec.length) != 0) {
    r->why = "the code in memory differs from the file the tool read";
    return false;
  }
  return true;
}

uint64_t prepare(PatchRequest* r, Segment* seg, int first_region = 0) {
  const PatchSpec& spec = *r->spec;
  if (!check_site(r, seg)) return 0;
  if (g_sites == kMaxPatchSites) {
    r->why = "more than 64 patched addresses";
    return 0;
  }
  Region* region = region_for(r->site, first_region);
  if (region == nullptr) {
    r->why = "no free memory within 2 GB of the code for trampolines";
    return 0;
  }
  uint8_t* tramp = region->base + size_t(region->used) * kTrampolineBytes;
  uint64_t* count = reinterpret_cast<uint64_t*>(
      region->base + kTrampolineArea + size_t(region->used) * kCounterStride);
  size_t n = r->hook_fn != 0
                 ? build_hook_trampoline(spec, r->bias, r->site, r->hook_at,
                                         r->hook_fn, r->hook_arg, tramp,
                                         uint64_t(tramp), kTrampolineBytes)
                 : build_trampoline(spec, r->bias, r->site, uint64_t(count),
                                    tramp, uint64_t(tramp), kTrampolineBytes);
  uint8_t jump[5];
  if (n == 0 || !jump_bytes(r->site, uint64_t(tramp), jump)) {
    r->why =
        "a target of the displaced instructions is more than 2 GB from "
        "the trampolines";
    return 0;
  }
  ++region->used;
  r->index = g_sites;
  g_counters[r->index] = count;
  *count = 0;
  SiteInfo& info = g_site_info[r->index];
  info = SiteInfo{r->site, spec.length, {}, false, seg->prot, r->hook_fn != 0};
  memcpy(info.original, spec.original, sizeof info.original);
  __atomic_store_n(&g_sites, g_sites + 1, __ATOMIC_RELEASE);
  return uint64_t(tramp);
}

// Writes the jump at r->site (its trampoline is complete and executable).
bool write_jump(PatchRequest* r, uint64_t tramp, const Segment& seg) {
  uint8_t jump[5];
  jump_bytes(r->site, tramp, jump);
  uint64_t first = r->site & ~uint64_t(kPage - 1);
  uint64_t last = (r->site + 5 + kPage - 1) & ~uint64_t(kPage - 1);
  if (mprotect(reinterpret_cast<void*>(first), last - first,
               seg.prot | PROT_WRITE) != 0) {
    r->why =
        "the code cannot be made writable (mprotect refused: a W^X "
        "policy?)";
    return false;
  }
  int t = g_trap_count;
  g_traps[t] = Trap{r->site, tramp};
  __atomic_store_n(&g_trap_count, t + 1, __ATOMIC_RELEASE);
  volatile uint8_t* w = reinterpret_cast<volatile uint8_t*>(r->site);
  w[0] = 0xcc;  // int3: a thread arriving now goes to the trampoline
  sync_cores();
  for (int i = 1; i < 5; ++i) w[i] = jump[i];
  sync_cores();
  w[0] = jump[0];
  sync_cores();
  // Bytes 5..length-1 keep the displaced instructions' tails: nothing jumps
  // there (the tool checked), and a thread the write caught at one of those
  // instruction boundaries goes on through the original code (uncounted).
  mprotect(reinterpret_cast<void*>(first), last - first, seg.prot);
  g_site_info[r->index].active = true;
  return true;
}

// True when [site, site + length) overlaps the bytes of an active patch.
bool overlaps_active(uint64_t site, uint64_t length) {
  for (int i = 0; i < g_sites; ++i) {
    const SiteInfo& o = g_site_info[i];
    if (o.active && site < o.site + o.length && o.site < site + length)
      return true;
  }
  return false;
}

}  // namespace

void code_patch_install(PatchRequest* requests, int count) {
  // Once per process: afterwards the trampoline areas are read+exec.
  static bool installed = false;
  if (installed) {
    for (int i = 0; i < count; ++i) {
      requests[i].index = -1;
      requests[i].why = "patching happens once, at start-up";
    }
    return;
  }
  installed = true;
  uint64_t tramps[kMaxPatchSites] = {};
  Segment segs[kMaxPatchSites] = {};
  for (int i = 0; i < count; ++i) {
    requests[i].index = -1;
    requests[i].why = nullptr;
    if (i >= kMaxPatchSites) {
      requests[i].why = "more than 64 patched addresses";
      continue;
    }
    // Every jump is written after every check: a request whose bytes
    // overlap those of an earlier one (a --progress point and a --trace
    // entry at one function) would pass the check and then overwrite the
    // earlier jump. The earlier one keeps the address.
    const uint64_t start = requests[i].site;
    const uint64_t end = start + requests[i].spec->length;
    bool overlaps = false;
    for (int k = 0; k < i && !overlaps; ++k)
      overlaps = requests[k].index >= 0 &&
                 start < requests[k].site + requests[k].spec->length &&
                 requests[k].site < end;
    if (overlaps) {
      requests[i].why =
          "its bytes overlap an address patched for another probe";
      continue;
    }
    tramps[i] = prepare(&requests[i], &segs[i]);
  }
  // The trampolines are complete: read+exec from now on (never writable and
  // executable at once), before any jump can lead a thread there.
  for (int a = 0; a < g_region_count; ++a) {
    uint8_t* base = g_regions[a].base;
    if (mprotect(base, kTrampolineArea, PROT_READ | PROT_EXEC) == 0) continue;
    for (int i = 0; i < count && i < kMaxPatchSites; ++i)
      if (requests[i].index >= 0 && tramps[i] >= uint64_t(base) &&
          tramps[i] < uint64_t(base) + kTrampolineArea) {
        requests[i].index = -1;
        requests[i].why = "the trampolines cannot be made executable";
      }
  }
  g_sync_core =
      syscall(SYS_membarrier,
              MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
  for (int i = 0; i < count && i < kMaxPatchSites; ++i)
    if (requests[i].index >= 0 && !write_jump(&requests[i], tramps[i], segs[i]))
      requests[i].index = -1;
}

bool code_patch_install_live(PatchRequest* requests, int count,
                             const char** why) {
  *why = nullptr;
  Segment segs[kMaxPatchSites] = {};
  if (count <= 0 || g_sites + count > kMaxPatchSites) {
    *why = "more than 64 patched addresses in the process";
    return false;
  }
  // Every check before anything is mapped or written: a refused probe
  // leaves the program's code as it was.
  for (int i = 0; i < count; ++i) {
    PatchRequest& r = requests[i];
    r.index = -1;
    r.why = nullptr;
    bool overlaps = overlaps_active(r.site, r.spec->length);
    for (int k = 0; k < i && !overlaps; ++k)
      overlaps = r.site < requests[k].site + requests[k].spec->length &&
                 requests[k].site < r.site + r.spec->length;
    if (overlaps)
      r.why = "its bytes overlap an address patched for another probe";
    else
      check_site(&r, &segs[i]);
    if (r.why != nullptr) {
      *why = r.why;
      return false;
    }
  }
  // Areas of this install only: the others are executable, maybe running.
  const int first_region = g_region_count;
  const int first_site = g_sites;
  uint64_t tramps[kMaxPatchSites] = {};
  for (int i = 0; i < count; ++i) {
    tramps[i] = prepare(&requests[i], &segs[i], first_region);
    if (tramps[i] == 0) {
      *why = requests[i].why;
      break;
    }
  }
  for (int a = first_region; *why == nullptr && a < g_region_count; ++a)
    if (mprotect(g_regions[a].base, kTrampolineArea, PROT_READ | PROT_EXEC) !=
        0)
      *why = "the trampolines cannot be made executable";
  if (*why != nullptr) {
    // Nothing was written to the code: give the areas and indexes back.
    for (int a = first_region; a < g_region_count; ++a)
      munmap(g_regions[a].base, kRegion);
    g_region_count = first_region;
    __atomic_store_n(&g_sites, first_site, __ATOMIC_RELEASE);
    for (int i = 0; i < count; ++i) requests[i].index = -1;
    return false;
  }
  // Full: no later install writes into these (they are executable now).
  for (int a = first_region; a < g_region_count; ++a)
    g_regions[a].used = kMaxPatchSites;
  if (!g_sync_core)
    g_sync_core =
        syscall(SYS_membarrier,
                MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
  for (int i = 0; i < count; ++i) {
    if (write_jump(&requests[i], tramps[i], segs[i])) continue;
    *why = requests[i].why;
    // All or nothing: take back the jumps already written.
    for (int k = 0; k < i; ++k) code_patch_remove(requests[k].index, nullptr);
    for (int k = 0; k < count; ++k) requests[k].index = -1;
    return false;
  }
  return true;
}

bool code_patch_remove(int index, const char** why) {
  if (index < 0 || index >= g_sites || !g_site_info[index].active) {
    if (why) *why = "the address is not patched";
    return false;
  }
  SiteInfo& info = g_site_info[index];
  uint64_t first = info.site & ~uint64_t(kPage - 1);
  uint64_t last = (info.site + 5 + kPage - 1) & ~uint64_t(kPage - 1);
  if (mprotect(reinterpret_cast<void*>(first), last - first,
               info.prot | PROT_WRITE) != 0) {
    if (why)
      *why =
          "the code cannot be made writable (mprotect refused: a W^X "
          "policy?)";
    return false;
  }
  // The same order as the patch: a thread arriving while the bytes change
  // meets the old jump, the int3 (code_patch_on_trap: to the trampoline,
  // which is still mapped and counts it) or the original instruction.
  volatile uint8_t* w = reinterpret_cast<volatile uint8_t*>(info.site);
  w[0] = 0xcc;
  sync_cores();
  for (int i = 1; i < 5; ++i) w[i] = info.original[i];
  sync_cores();
  w[0] = info.original[0];
  sync_cores();
  mprotect(reinterpret_cast<void*>(first), last - first, info.prot);
  info.active = false;
  return true;
}

int code_patch_counting_at(uint64_t site) {
  for (int i = 0; i < g_sites; ++i)
    if (g_site_info[i].active && !g_site_info[i].hook &&
        g_site_info[i].site == site)
      return i;
  return -1;
}

ANDWEORC_SIGNAL_SAFE uint64_t code_patch_count(int index) {
  if (index < 0 || index >= __atomic_load_n(&g_sites, __ATOMIC_ACQUIRE))
    return 0;
  return __atomic_load_n(g_counters[index], __ATOMIC_RELAXED);
}

void code_patch_reset_counts() {
  for (int i = 0; i < g_sites; ++i)
    __atomic_store_n(g_counters[i], 0, __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE bool code_patch_on_trap(void* ucontext) {
  auto* uc = static_cast<ucontext_t*>(ucontext);
  if (uc == nullptr) return false;
  // After int3 the thread's rip is the byte after it.
  uint64_t at = uint64_t(uc->uc_mcontext.gregs[REG_RIP]) - 1;
  int count = __atomic_load_n(&g_trap_count, __ATOMIC_ACQUIRE);
  // Newest first: a site patched again after a removal has a new
  // trampoline (and counter).
  for (int i = count - 1; i >= 0; --i)
    if (g_traps[i].site == at) {
      uc->uc_mcontext.gregs[REG_RIP] = greg_t(g_traps[i].trampoline);
      return true;
    }
  return false;
}

}  // namespace andweorc::runtime
