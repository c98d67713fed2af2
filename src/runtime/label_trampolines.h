// label_trampolines.h: the family of trampolines behind andweorc::Label.
//
// Each trampoline is a distinct function at a distinct address that calls
// fn(arg) and leaves an address inside itself in every frame-pointer call
// chain that passes through it (see label_trampolines.cc for how), and
// the label bound to trampoline i at the sample's time is the sample's label
// (see labels.h for the bindings). The trampolines live in their own section
// so the tool can tell them apart from any other code.
#ifndef ANDWEORC_RUNTIME_LABEL_TRAMPOLINES_H_
#define ANDWEORC_RUNTIME_LABEL_TRAMPOLINES_H_

#include <stdint.h>

namespace andweorc::runtime {

using Trampoline = void (*)(void (*fn)(void*), void* arg);

// Trampolines in the family; index 0 is shared by labels that found the
// pool empty (the "overflow" label).
inline constexpr uint32_t kTrampolineCount = 1024;

// The i-th trampoline (i < kTrampolineCount).
Trampoline trampoline_at(uint32_t i);

// Code range [start, end) of trampoline i: from its entry to the next
// trampoline's entry (or the end of the section for the last one).
struct CodeRange {
  uint64_t start, end;
};
CodeRange trampoline_range(uint32_t i);
// The whole section: every trampoline, nothing else.
CodeRange trampoline_table();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_LABEL_TRAMPOLINES_H_
