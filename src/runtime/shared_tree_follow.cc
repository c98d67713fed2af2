// shared_tree_follow.cc: regions named by build-id and offset across exec
// (shared_tree.h). The coordinator's process records which objects its
// table covers; an exec'd image that joined the tree translates that table
// into its own addresses, object by object, and uses it with the tree's
// selection: the same line id is the same code in every process. Ordinary
// code (dl_iterate_phdr, allocation), never in a handler.
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "runtime/address_table.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/shared_tree.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {
namespace {

// The GNU build-id in the notes [p, end); 0 when none.
uint32_t note_build_id(const char* p, const char* end, uint8_t* out) {
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
    const char* name = p + sizeof *n;
    const char* desc = name + ((n->n_namesz + 3) & ~3u);
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
        memcmp(name, "GNU", 4) == 0 && n->n_descsz <= kBuildIdMax &&
        desc + n->n_descsz <= end) {
      memcpy(out, desc, n->n_descsz);
      return n->n_descsz;
    }
    p = desc + ((n->n_descsz + 3) & ~3u);
  }
  return 0;
}

// The GNU build-id of a loaded object, from its PT_NOTE segments; 0 when
// none.
uint32_t build_id_of(const dl_phdr_info* info, uint8_t* out) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    auto* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
    if (uint32_t n = note_build_id(p, p + ph.p_memsz, out)) return n;
  }
  return 0;
}

// Every loaded object with a build-id and executable code.
std::vector<TreeModule> loaded_modules() {
  std::vector<TreeModule> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        TreeModule m{};
        m.bias = info->dlpi_addr;
        m.lo = ~uint64_t(0);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
          m.lo = std::min<uint64_t>(m.lo, info->dlpi_addr + ph.p_vaddr);
          m.hi = std::max<uint64_t>(m.hi,
                                    info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
        }
        m.build_id_len = build_id_of(info, m.build_id);
        if (m.build_id_len > 0 && m.lo < m.hi)
          static_cast<std::vector<TreeModule>*>(data)->push_back(m);
        return 0;
      },
      &out);
  return out;
}

const TreeModule* same_object(const std::vector<TreeModule>& mods,
                              const TreeModule& m) {
  for (const TreeModule& x : mods)
    if (x.build_id_len == m.build_id_len &&
        memcmp(x.build_id, m.build_id, m.build_id_len) == 0)
      return &x;
  return nullptr;
}

// The coordinator's table in this image's addresses (nullptr when none of
// its objects is loaded here). Line and function ids are the
// coordinator's; the sample counts are the tree's (shared arrays).
const AddressTable* translate_tree_table(TreeSegment* t,
                                         const AddressTable& theirs) {
  uint32_t n = __atomic_load_n(&t->module_count, __ATOMIC_ACQUIRE);
  if (n > uint32_t(kTreeModules)) n = kTreeModules;
  std::vector<TreeModule> mine = loaded_modules();
  auto* ranges_there =
      static_cast<const AddressRange*>(tree_arena_local(t, theirs.ranges));
  std::vector<AddressRange> ranges;
  for (uint32_t k = 0; k < n; ++k) {
    const TreeModule& m = t->modules[k];
    const TreeModule* here = same_object(mine, m);
    if (here == nullptr) continue;
    // Ranges are sorted: the object's are one run of them.
    const AddressRange* first = std::lower_bound(
        ranges_there, ranges_there + theirs.range_count, m.lo,
        [](const AddressRange& r, uint64_t a) { return r.hi <= a; });
    for (const AddressRange* r = first;
         r < ranges_there + theirs.range_count && r->lo < m.hi; ++r)
      ranges.push_back(AddressRange{r->lo - m.bias + here->bias,
                                    r->hi - m.bias + here->bias, r->line,
                                    r->function});
  }
  if (ranges.empty()) return nullptr;
  std::sort(
      ranges.begin(), ranges.end(),
      [](const AddressRange& a, const AddressRange& b) { return a.lo < b.lo; });
  // Read by handlers until exit: never freed.
  auto* storage = new AddressRange[ranges.size()];
  std::copy(ranges.begin(), ranges.end(), storage);
  auto* table = new AddressTable{
      storage,
      ranges.size(),
      static_cast<uint64_t*>(
          const_cast<void*>(tree_arena_local(t, theirs.line_samples))),
      theirs.line_count,
      static_cast<uint64_t*>(
          const_cast<void*>(tree_arena_local(t, theirs.function_samples))),
      theirs.function_count,
      theirs.generation};
  return table;
}

// This image's main executable, for the coordinator of a tree whose first
// process has no code (coordinator_state 3).
void register_executable(TreeSegment* t) {
  char path[kTreeImagePathMax];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return;
  path[n] = '\0';
  tree_register_image(t, path);
}

// The coordinator's current table translated here, or nullptr when none
// is published yet or it changed while being read (table_generation is a
// sequence word: odd while the coordinator replaces table and modules).
// `*seen` is the coordinator's table this translation is of.
const AddressTable* translate_current(TreeSegment* t,
                                      const AddressTable** seen) {
  uint32_t g0 = __atomic_load_n(&t->table_generation, __ATOMIC_ACQUIRE);
  if ((g0 & 1u) != 0) return nullptr;
  const AddressTable* theirs =
      __atomic_load_n(&t->selection.table, __ATOMIC_ACQUIRE);
  if (theirs == nullptr || theirs == *seen ||
      __atomic_load_n(&t->module_count, __ATOMIC_ACQUIRE) == 0)
    return nullptr;
  auto* local = static_cast<const AddressTable*>(tree_arena_local(t, theirs));
  const AddressTable* mine = translate_tree_table(t, *local);
  if (__atomic_load_n(&t->table_generation, __ATOMIC_ACQUIRE) != g0)
    return nullptr;  // torn: the next look gets the new one whole
  *seen = theirs;
  return mine;
}

// The coordinator's table this image last translated, and whether its
// follower still runs. A fork child copies both (tree_follower_after_fork):
// a worker that a server forks before the table arrives (nginx's master
// forks at once) must still get it, and a child of one that has it need
// not translate it again.
const AddressTable* g_seen = nullptr;
bool g_following = false;

// Waits for the coordinator's table (it may still be reading DWARF when
// this image starts), then publishes its translation here. Under
// coordinator_state 3 it registers this image's executable first and
// then translates each new table for as long as the image runs: it sleeps
// on table_generation, which the coordinator bumps and wakes at each new
// table (a selection of a newer table matches nothing here meanwhile, see
// AddressTable::generation). It used to look every 20 ms, in every process
// of the tree, for the whole run (issue 11: each wake-up takes a core from
// the program for a moment).
void follow_until_done() {
  TreeSegment* t = tree();
  bool registered = false;
  for (int i = 0; t != nullptr; ++i) {
    uint32_t state = __atomic_load_n(&t->coordinator_state, __ATOMIC_ACQUIRE);
    if (state == 2) return;
    if (state == 3 && !registered) {
      register_executable(t);  // once per executable: a fork child's is there
      registered = true;
    }
    // Read before translating: a table published after this read changes
    // the word, and the wait below returns at once.
    uint32_t generation =
        __atomic_load_n(&t->table_generation, __ATOMIC_ACQUIRE);
    const AddressTable* before = g_seen;
    if (const AddressTable* mine = translate_current(t, &g_seen))
      publish_address_table(mine);
    if (state != 3 && g_seen != before) return;  // one table for good
    if (state != 3 && i >= 60 * 200) return;     // 60 s at most
    if (state == 3) {
      // A second at most, should a wake-up ever be missed.
      futex_wait(&t->table_generation, generation, 1000000000,
                 /*shared=*/true);
      continue;
    }
    timespec ts{0, 5 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
}

void* follow_tree_table(void*) {
  note_runtime_thread("andweorc-follow");
  follow_until_done();
  note_runtime_thread_end();
  __atomic_store_n(&g_following, false, __ATOMIC_RELEASE);
  return nullptr;
}

}  // namespace

void tree_publish_modules(TreeSegment* t, const AddressTable& table) {
  if (t == nullptr || tree_joined_by_exec()) return;
  uint32_t n = 0;
  for (const TreeModule& m : loaded_modules()) {
    if (n == uint32_t(kTreeModules)) break;
    // Only objects the table covers (in-scope code): the list is short.
    const AddressRange* first = std::lower_bound(
        table.ranges, table.ranges + table.range_count, m.lo,
        [](const AddressRange& x, uint64_t a) { return x.hi <= a; });
    if (first == table.ranges + table.range_count || first->lo >= m.hi)
      continue;
    t->modules[n++] = m;
  }
  __atomic_store_n(&t->module_count, n, __ATOMIC_RELEASE);
}

bool tree_module_of_file(const char* path, uint64_t bias, TreeModule* out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  TreeModule m{};
  m.bias = bias;
  m.lo = ~uint64_t(0);
  ElfW(Ehdr) eh;
  bool ok = pread(fd, &eh, sizeof eh, 0) == ssize_t(sizeof eh) &&
            memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
            eh.e_ident[EI_CLASS] == ELFCLASS64;
  for (unsigned i = 0; ok && i < eh.e_phnum; ++i) {
    ElfW(Phdr) ph;
    if (pread(fd, &ph, sizeof ph, off_t(eh.e_phoff + i * eh.e_phentsize)) !=
        ssize_t(sizeof ph))
      break;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      m.lo = std::min<uint64_t>(m.lo, bias + ph.p_vaddr);
      m.hi = std::max<uint64_t>(m.hi, bias + ph.p_vaddr + ph.p_memsz);
    }
    if (ph.p_type != PT_NOTE || m.build_id_len != 0 || ph.p_filesz > 65536)
      continue;
    std::vector<char> notes(ph.p_filesz);
    if (pread(fd, notes.data(), notes.size(), off_t(ph.p_offset)) !=
        ssize_t(notes.size()))
      continue;
    m.build_id_len =
        note_build_id(notes.data(), notes.data() + notes.size(), m.build_id);
  }
  close(fd);
  if (!ok || m.build_id_len == 0 || m.lo >= m.hi) return false;
  *out = m;
  return true;
}

void tree_publish_module_list(TreeSegment* t, const TreeModule* modules,
                              uint32_t n) {
  if (t == nullptr || tree_joined_by_exec()) return;
  if (n > uint32_t(kTreeModules)) n = kTreeModules;
  for (uint32_t i = 0; i < n; ++i) t->modules[i] = modules[i];
  __atomic_store_n(&t->module_count, n, __ATOMIC_RELEASE);
}

void tree_start_follower() {
  sigset_t all, old;
  sigfillset(&all);
  real().pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_t thread;
  __atomic_store_n(&g_following, true, __ATOMIC_RELEASE);
  if (real().pthread_create(&thread, nullptr, follow_tree_table, nullptr) == 0)
    pthread_detach(thread);
  else
    __atomic_store_n(&g_following, false, __ATOMIC_RELEASE);
  real().pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void tree_follower_after_fork() {
  // The parent's follower thread is not in the child; it was still waiting
  // for a table (or following generations): the child goes on from what
  // the parent had translated.
  if (__atomic_load_n(&g_following, __ATOMIC_ACQUIRE)) tree_start_follower();
}

}  // namespace andweorc::runtime
