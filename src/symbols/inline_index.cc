// inline_index.cc: one DIE walk per CU collecting code ranges of functions and
// inlined calls, flattened into disjoint innermost-entry segments.
#include "symbols/inline_index.h"

#include <dwarf.h>

#include <algorithm>
#include <tuple>

namespace andweorc::symbols {
namespace {

struct RawRange {
  Dwarf_Addr lo;
  Dwarf_Addr hi;
  int32_t entry;
  int32_t depth;
};

// Tags whose children can never own code (or only declarations whose code is
// described elsewhere): skipping them keeps the walk cheap on type-heavy C++.
bool skip_children(int tag) {
  switch (tag) {
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
    case DW_TAG_enumeration_type:
    case DW_TAG_subroutine_type:
    case DW_TAG_array_type:
    case DW_TAG_formal_parameter:
    case DW_TAG_variable:
    case DW_TAG_template_type_parameter:
    case DW_TAG_template_value_parameter:
    case DW_TAG_GNU_template_parameter_pack:
    case DW_TAG_GNU_formal_parameter_pack:
    case DW_TAG_GNU_call_site:
    case DW_TAG_call_site:
      return true;
    default:
      return false;
  }
}

uint32_t udata_attr(Dwarf_Die* die, unsigned int name) {
  Dwarf_Attribute attr;
  Dwarf_Word value = 0;
  if (dwarf_attr(die, name, &attr) == nullptr ||
      dwarf_formudata(&attr, &value) != 0) {
    return 0;
  }
  return static_cast<uint32_t>(value);
}

}  // namespace

InlineIndex InlineIndex::build(Dwarf_Die* cudie) {
  InlineIndex index;
  std::vector<RawRange> ranges;

  // Iterative pre-order walk; each stack slot is a DIE whose siblings are
  // still to visit plus the entry that encloses them.
  struct Level {
    Dwarf_Die die;
    int32_t parent_entry;
    int32_t depth;
  };
  std::vector<Level> stack;
  Dwarf_Die child;
  if (dwarf_child(cudie, &child) == 0) stack.push_back({child, -1, 0});

  while (!stack.empty()) {
    Level& level = stack.back();
    // dwarf_tag first: it caches the abbreviation in the Dwarf_Die, so the
    // copy and dwarf_siblingof below don't look it up again (each lookup
    // takes a lock inside libdw; it was a third of the walk's time).
    int tag = dwarf_tag(&level.die);
    Dwarf_Die die = level.die;
    int32_t parent = level.parent_entry;
    int32_t depth = level.depth;
    // Advance this level to the next sibling before descending.
    int sib = dwarf_siblingof(&level.die, &level.die);
    if (sib != 0) stack.pop_back();  // 1: no more siblings, -1: error

    int32_t enclosing = parent;
    bool descend = !skip_children(tag);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      // dwarf_hasattr only reads the abbreviation. Checking first avoids
      // dwarf_ranges on declarations and abstract instances, where it would
      // chase DW_AT_specification/abstract_origin looking for a low_pc.
      bool has_low = dwarf_hasattr(&die, DW_AT_low_pc);
      bool has_ranges = dwarf_hasattr(&die, DW_AT_ranges);
      int32_t id = -1;
      auto add = [&](Dwarf_Addr lo, Dwarf_Addr hi) {
        if (lo >= hi) return;
        if (id < 0) {
          id = static_cast<int32_t>(index.entries_.size());
          InlineEntry e;
          e.die = dwarf_dieoffset(&die);
          e.parent = parent;
          e.inlined = tag == DW_TAG_inlined_subroutine;
          if (e.inlined) {
            e.call_file = udata_attr(&die, DW_AT_call_file);
            e.call_line =
                static_cast<int32_t>(udata_attr(&die, DW_AT_call_line));
          }
          index.entries_.push_back(e);
        }
        ranges.push_back({lo, hi, id, depth});
      };
      Dwarf_Addr base, lo, hi;
      if (has_low && !has_ranges && dwarf_hasattr(&die, DW_AT_high_pc)) {
        if (dwarf_lowpc(&die, &lo) == 0 && dwarf_highpc(&die, &hi) == 0) {
          add(lo, hi);
        }
      } else if (has_low || has_ranges) {
        ptrdiff_t off = 0;
        while ((off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0) {
          add(lo, hi);
        }
      }
      if (id >= 0) {
        enclosing = id;
      } else if (tag == DW_TAG_subprogram) {
        // A declaration or abstract instance: its children describe no code.
        descend = false;
      }
    }
    if (descend && dwarf_haschildren(&die) > 0 &&
        dwarf_child(&die, &child) == 0) {
      stack.push_back({child, enclosing, depth + 1});
    }
  }

  // Outer ranges first at equal start so inner ones override them.
  std::sort(
      ranges.begin(), ranges.end(), [](const RawRange& a, const RawRange& b) {
        return std::tie(a.lo, b.hi, a.depth) < std::tie(b.lo, a.hi, b.depth);
      });

  // Sweep with a stack of open ranges: the top is the innermost one covering
  // the cursor. Properly nested DWARF gives exact results; overlapping but
  // non-nested ranges (malformed input) are clipped rather than trusted.
  auto& segs = index.segments_;
  auto emit = [&segs](Dwarf_Addr lo, Dwarf_Addr hi, int32_t entry) {
    if (lo >= hi) return;
    if (!segs.empty() && segs.back().hi == lo && segs.back().entry == entry) {
      segs.back().hi = hi;
    } else {
      segs.push_back({lo, hi, entry});
    }
  };
  std::vector<const RawRange*> open;
  Dwarf_Addr cursor = 0;
  auto close_until = [&](Dwarf_Addr limit) {
    while (!open.empty() && open.back()->hi <= limit) {
      if (open.back()->hi > cursor) {
        emit(cursor, open.back()->hi, open.back()->entry);
        cursor = open.back()->hi;
      }
      open.pop_back();
    }
  };
  for (const RawRange& r : ranges) {
    close_until(r.lo);
    if (!open.empty() && cursor < r.lo) emit(cursor, r.lo, open.back()->entry);
    cursor = r.lo;  // never moves backwards: popped ends are <= r.lo
    open.push_back(&r);
  }
  close_until(~Dwarf_Addr{0});
  return index;
}

int32_t InlineIndex::innermost(Dwarf_Addr addr) const {
  auto it =
      std::upper_bound(segments_.begin(), segments_.end(), addr,
                       [](Dwarf_Addr a, const Segment& s) { return a < s.lo; });
  if (it == segments_.begin()) return -1;
  --it;
  return addr < it->hi ? it->entry : -1;
}

}  // namespace andweorc::symbols
