// label_trampolines.cc: see label_trampolines.h.
//
// Built with -fno-ipa-icf (identical bodies must stay distinct functions),
// -fno-omit-frame-pointer and -fexceptions (a C++ exception thrown by the
// labelled work unwinds through these frames).
//
// Why two levels: when the labelled code does not set up a frame (a leaf, or
// code built without frame pointers), the kernel's frame-pointer walk skips
// the return address its caller pushed. The trampoline therefore calls a
// shared function that always keeps a frame, and that function's return
// address (inside trampoline i) is what lands in every sampled chain.
#include "runtime/label_trampolines.h"

#include <algorithm>

namespace andweorc::runtime {
namespace {

// The asm after the call keeps it a call (no tail call), and noipa keeps
// the compiler from inlining, cloning or merging it.
[[gnu::noinline, gnu::noipa, gnu::section("andweorc_trampolines")]] void
keep_frame_and_call(void (*fn)(void*), void* arg) {
  fn(arg);
  asm volatile("" ::: "memory");
}

}  // namespace
}  // namespace andweorc::runtime

// One trampoline per index, all in section andweorc_trampolines (the linker
// defines __start_/__stop_ symbols for it).
#define ANDWEORC_TRAMPOLINE_(n)                                     \
  extern "C" [[gnu::noinline, gnu::noipa, gnu::used,                \
               gnu::section("andweorc_trampolines")]] void          \
      andweorc_label_trampoline_##n(void (*fn)(void*), void* arg) { \
    andweorc::runtime::keep_frame_and_call(fn, arg);                \
    asm volatile("" ::: "memory");                                  \
  }
// Base-4 digits: five levels give 4^5 = 1024 names.
#define ANDWEORC_X4_(M, p) M(p##0) M(p##1) M(p##2) M(p##3)
#define ANDWEORC_X16_(M, p) \
  ANDWEORC_X4_(M, p##0)     \
  ANDWEORC_X4_(M, p##1) ANDWEORC_X4_(M, p##2) ANDWEORC_X4_(M, p##3)
#define ANDWEORC_X64_(M, p) \
  ANDWEORC_X16_(M, p##0)    \
  ANDWEORC_X16_(M, p##1) ANDWEORC_X16_(M, p##2) ANDWEORC_X16_(M, p##3)
#define ANDWEORC_X256_(M, p) \
  ANDWEORC_X64_(M, p##0)     \
  ANDWEORC_X64_(M, p##1) ANDWEORC_X64_(M, p##2) ANDWEORC_X64_(M, p##3)
#define ANDWEORC_X1024_(M) \
  ANDWEORC_X256_(M, 0)     \
  ANDWEORC_X256_(M, 1) ANDWEORC_X256_(M, 2) ANDWEORC_X256_(M, 3)

ANDWEORC_X1024_(ANDWEORC_TRAMPOLINE_)

extern "C" char __start_andweorc_trampolines[];
extern "C" char __stop_andweorc_trampolines[];

namespace andweorc::runtime {
namespace {

#define ANDWEORC_TRAMPOLINE_ENTRY_(n) &andweorc_label_trampoline_##n,
constexpr Trampoline kTable[] = {ANDWEORC_X1024_(ANDWEORC_TRAMPOLINE_ENTRY_)};
static_assert(sizeof kTable / sizeof kTable[0] == kTrampolineCount);

struct Ranges {
  CodeRange r[kTrampolineCount];
  Ranges() {
    // Every function entry in the section: the trampolines and the helper.
    constexpr uint32_t n = kTrampolineCount + 1;
    uint64_t sorted[n];
    for (uint32_t i = 0; i < kTrampolineCount; ++i)
      sorted[i] = reinterpret_cast<uint64_t>(kTable[i]);
    sorted[kTrampolineCount] = reinterpret_cast<uint64_t>(&keep_frame_and_call);
    std::sort(sorted, sorted + n);
    uint64_t stop = reinterpret_cast<uint64_t>(__stop_andweorc_trampolines);
    for (uint32_t i = 0; i < kTrampolineCount; ++i) {
      uint64_t start = reinterpret_cast<uint64_t>(kTable[i]);
      const uint64_t* next = std::upper_bound(sorted, sorted + n, start);
      r[i] = CodeRange{start, next == sorted + n ? stop : *next};
    }
  }
};

}  // namespace

Trampoline trampoline_at(uint32_t i) { return kTable[i]; }

CodeRange trampoline_range(uint32_t i) {
  static const Ranges ranges;  // built once, on the first label (not a handler)
  return ranges.r[i];
}

CodeRange trampoline_table() {
  return CodeRange{reinterpret_cast<uint64_t>(__start_andweorc_trampolines),
                   reinterpret_cast<uint64_t>(__stop_andweorc_trampolines)};
}

}  // namespace andweorc::runtime
