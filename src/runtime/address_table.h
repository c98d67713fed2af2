// address_table.h: runtime address -> in-scope source line, for the handler.
//
// Built by the coordinator (src/coordinator) from DWARF before experiments
// start, then published once through an atomic pointer and never modified
// or freed: the handler only reads it. Each range maps to the line a sample
// there is attributed to: the first in-scope frame of the inline chain at
// that address. Lines also carry a function id, so a whole function can be
// selected (--granularity function).
#ifndef ANDWEORC_RUNTIME_ADDRESS_TABLE_H_
#define ANDWEORC_RUNTIME_ADDRESS_TABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

struct AddressRange {
  uint64_t lo;        // inclusive
  uint64_t hi;        // exclusive
  uint32_t line;      // the line a sample here is attributed to
  uint32_t function;  // the concrete function whose code this is
};

struct AddressTable {
  const AddressRange* ranges = nullptr;  // sorted by lo, non-overlapping
  size_t range_count = 0;
  uint64_t* line_samples = nullptr;  // line id -> samples (atomic adds)
  size_t line_count = 0;
  uint64_t* function_samples = nullptr;  // function id -> samples
  size_t function_count = 0;
  // Which of the coordinator's tables this is (its ids): a process tree
  // whose first process has no code of its own builds a new table each time
  // a program with code joins (shared_tree.h, coordinator_state 3). A
  // selection is only ever matched against the table it was made for.
  uint32_t generation = 0;
};

// The published table, or nullptr before the coordinator built one.
ANDWEORC_SIGNAL_SAFE const AddressTable* address_table();
// Publishes `t` (which must stay valid for the life of the process).
void publish_address_table(const AddressTable* t);

// Index of the range holding an address, or -1.
ANDWEORC_SIGNAL_SAFE int32_t table_lookup(const AddressTable& t, uint64_t addr);

// The range a sample is attributed to: that of the first frame, leaf first,
// in in-scope code (return addresses are looked up at address - 1, inside
// the call instruction). -1 when there is none.
ANDWEORC_SIGNAL_SAFE int32_t attribute_frames(const AddressTable& t,
                                              const uint64_t* frames, int n);

// The published table and the selection. In a process tree (delay_engine.h)
// they live in the MAP_SHARED segment fork children inherit: a child forked
// before the coordinator built the table still sees it once published (the
// table's storage is in that segment too, at the same address in every
// forked process), and the selection the coordinator sets is the selection
// of every forked copy of the program. Atomics only.
struct SelectionShared {
  const AddressTable* table = nullptr;
  int32_t selected = -1;
  int32_t granularity = 0;  // Granularity
  uint32_t generation = 0;  // the AddressTable::generation `selected` is of
};
// Uses `shared` from now on (start-up only, before sampling starts; the
// current table and selection are carried over).
void attach_shared_selection(SelectionShared* shared);

// An exec'd image that joined a process tree (shared_tree.h): follows
// `shared`'s selection as it is (nothing carried over), with a table of
// its own (the shared one holds another image's addresses): until
// publish_address_table gives it one, it has none.
void join_shared_selection(SelectionShared* shared);

// What the current experiment speeds up (-1 when none).
enum class Granularity : int { kLine = 0, kFunction = 1 };
struct Selection {
  int32_t id = -1;  // a line id or a function id
  int granularity = int(Granularity::kLine);
};
ANDWEORC_SIGNAL_SAFE bool selection_matches(const AddressTable& t,
                                            int32_t range);
void set_selection(int32_t id, Granularity g);
void clear_selection();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_ADDRESS_TABLE_H_
