// inline_index.h: per-compilation-unit index of function and inlined-call
// address ranges, so address -> inline chain costs a binary search instead of
// a dwarf_getscopes rescan of the CU (~6 ms each on big CUs).
#ifndef ANDWEORC_SYMBOLS_INLINE_INDEX_H_
#define ANDWEORC_SYMBOLS_INLINE_INDEX_H_

#include <elfutils/libdw.h>

#include <cstdint>
#include <vector>

namespace andweorc::symbols {

// One DW_TAG_subprogram or DW_TAG_inlined_subroutine that owns code.
struct InlineEntry {
  Dwarf_Off die = 0;       // DIE offset; names are resolved lazily from it
  int32_t parent = -1;     // nearest enclosing entry in the DIE tree, or -1
  int32_t call_line = 0;   // DW_AT_call_line (inlined subroutines only)
  uint32_t call_file = 0;  // DW_AT_call_file index into the CU's file table
  bool inlined = false;    // DW_TAG_inlined_subroutine
};

class InlineIndex {
 public:
  // Walks every DIE of the CU once. Addresses are in the Dwarf's own space
  // (no load bias applied).
  static InlineIndex build(Dwarf_Die* cudie);

  // The innermost entry whose ranges contain `addr`, or -1.
  int32_t innermost(Dwarf_Addr addr) const;

  const InlineEntry& entry(int32_t i) const { return entries_[i]; }
  size_t entry_count() const { return entries_.size(); }

 private:
  // Disjoint, sorted address intervals, each mapped to the innermost entry
  // covering it; nested DIE ranges are flattened once at build time.
  struct Segment {
    Dwarf_Addr lo;
    Dwarf_Addr hi;  // exclusive
    int32_t entry;
  };
  std::vector<InlineEntry> entries_;
  std::vector<Segment> segments_;
};

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_INLINE_INDEX_H_
