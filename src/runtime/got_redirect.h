// got_redirect.h: reroutes calls that loaded objects already bound to libc
// through other functions, by rewriting their GOT entries; and undoes it.
//
// Why: `andweorc attach` loads the runtime after the program's calls were
// bound, so preloading's interposition (how `run` sees locks, waits and
// I/O) cannot reach them. What ld.so wrote once can be written again: each
// object's JUMP_SLOT (calls through the PLT) and GLOB_DAT (addresses taken
// in position-independent code) relocations name the symbol they bind, and
// their GOT slot holds the address. A slot is rewritten only when it holds
// exactly the function the redirect replaces (bound to it), or a lazy
// binding's PLT stub whose symbol version resolves to that function (the
// first call would bind it there). Anything else (bound to another
// definition: the program's own, another interposer's) is left alone.
//
// Invariants that make writing live code pointers safe while threads run:
// - A slot is one aligned 8-byte store: a concurrent call jumps through
//   either the old or the new address, both valid.
// - Objects are walked inside dl_iterate_phdr, which holds the loader's
//   list lock: none can be unmapped under us. dlvsym (which takes the
//   loader's other lock, in the opposite order to dlopen) is never called
//   there: version answers are computed before (prepare()).
// - An object that ld.so may still be relocating is not touched: its
//   RELRO pages (PT_GNU_RELRO) must already be read-only in
//   /proc/self/maps (ld.so protects them only when done), and a lazy PLT
//   slot must already hold a relocated stub address (ld.so adds the load
//   bias to unrelocated ones; a value written before that would be
//   corrupted). RELRO pages are made writable only around our own writes.
// - ld.so itself and the object that holds this code are never patched.
//
// Not signal-safe (allocates, reads /proc): call it from ordinary threads.
#ifndef ANDWEORC_RUNTIME_GOT_REDIRECT_H_
#define ANDWEORC_RUNTIME_GOT_REDIRECT_H_

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <string>
#include <vector>

namespace andweorc::runtime {

struct DynamicTables;  // got_redirect.cc

struct GotTarget {
  const char* name;   // the symbol the relocation names
  void* real;         // what calls are bound to today (libc's definition)
  void* replacement;  // where they should go
};

struct GotCounts {
  int objects = 0;    // objects walked (ld.so, ours and the vdso excluded)
  int slots = 0;      // slots now pointing where asked (written or already)
  int written = 0;    // slots written by this call
  int unsettled = 0;  // objects still being loaded: retried next time
  int elsewhere = 0;  // slots bound to another definition: left alone
};

class GotRedirect {
 public:
  // `targets` names must be unique. `self` is any address inside the
  // object that holds the replacements: that object is never patched.
  GotRedirect(std::vector<GotTarget> targets, const void* self);

  // Computes which symbol versions of each name bind to its `real`
  // (dlvsym; not under the loader lock). Call once before apply().
  void prepare();
  // Points every matching slot of every loaded object at its replacement.
  // Idempotent: call it again for objects loaded since (or still loading).
  GotCounts apply();
  // Points every slot that holds a replacement back at its `real`
  // (a lazy slot is bound now instead of at its first call: the same
  // function).
  GotCounts restore();

  // Objects loaded or unloaded since the last apply() (cheap: the loader's
  // counters).
  bool objects_changed() const;

 private:
  struct Walk;
  GotCounts walk(bool redirect);
  // One object of the walk: its matching slots collected, then stored.
  void visit_object(const dl_phdr_info* info, Walk& w) const;
  void collect_writes(const dl_phdr_info* info, const DynamicTables& tables,
                      const Elf64_Rela* relocations, size_t bytes,
                      Walk& w) const;
  // accepted_'s bit for the version symbol `sym` asks for; -1: none of
  // versions_.
  int version_bit(const DynamicTables& tables, size_t sym) const;

  std::vector<GotTarget> targets_;  // sorted by name
  const void* self_;
  // Version names defined by the object that holds the targets' `real`s,
  // and per target the bit set of those that bind to its `real`.
  std::vector<std::string> versions_;
  std::vector<uint64_t> accepted_;
  unsigned long long adds_seen_ = 0, subs_seen_ = 0;
};

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_GOT_REDIRECT_H_
