// label_trampolines.cc: see label_trampolines.h.
//
// The trampolines are written in assembly (x86-64), so their code is exactly
// what the profile depends on, whatever the compiler and flags:
//
//   push %rbp; mov %rsp,%rbp          a real frame, like any function
//   lea 1f(%rip),%rax; push %rax      a second, fake frame whose "return
//   push %rbp; mov %rsp,%rbp            address" is inside this trampoline
//   mov %rdi,%rax; mov %rsi,%rdi
//   call *%rax                        fn(arg): a call, never a tail jump
//   1: pop %rbp; add $8,%rsp; pop %rbp; ret
//
// Why the fake frame: a frame-pointer walk (the kernel's, or our timer
// handler's) finds return addresses at [rbp+8]. If fn sets up a frame, its
// return address into the trampoline is found that way. If fn does not (a
// leaf, or code built without frame pointers), that return address is
// skipped, but rbp still points at the fake frame, whose [rbp+8] is inside
// the trampoline. Either way every sampled chain through trampoline i holds
// an address inside it, at the cost of two pushes rather than another call.
// CFI directives keep C++ exceptions unwinding through it.
#include "runtime/label_trampolines.h"

#include <algorithm>

#define ANDWEORC_TRAMPOLINE_(n)                              \
  asm(".pushsection andweorc_trampolines,\"ax\",@progbits\n" \
      ".p2align 4\n"                                         \
      ".globl andweorc_label_trampoline_" #n                 \
      "\n"                                                   \
      ".hidden andweorc_label_trampoline_" #n                \
      "\n"                                                   \
      ".type andweorc_label_trampoline_" #n                  \
      ",@function\n"                                         \
      "andweorc_label_trampoline_" #n                        \
      ":\n"                                                  \
      ".cfi_startproc\n"                                     \
      "pushq %rbp\n"                                         \
      ".cfi_def_cfa_offset 16\n"                             \
      ".cfi_offset %rbp, -16\n"                              \
      "movq %rsp, %rbp\n"                                    \
      ".cfi_def_cfa_register %rbp\n"                         \
      "leaq 1f(%rip), %rax\n"                                \
      "pushq %rax\n"                                         \
      "pushq %rbp\n"                                         \
      "movq %rsp, %rbp\n"                                    \
      ".cfi_def_cfa %rbp, 32\n"                              \
      "movq %rdi, %rax\n"                                    \
      "movq %rsi, %rdi\n"                                    \
      "call *%rax\n"                                         \
      "1:\n"                                                 \
      "popq %rbp\n"                                          \
      ".cfi_def_cfa %rbp, 16\n"                              \
      "addq $8, %rsp\n"                                      \
      "popq %rbp\n"                                          \
      ".cfi_def_cfa %rsp, 8\n"                               \
      "ret\n"                                                \
      ".cfi_endproc\n"                                       \
      ".size andweorc_label_trampoline_" #n                  \
      ", .-andweorc_label_trampoline_" #n                    \
      "\n"                                                   \
      ".popsection\n");                                      \
  extern "C" void andweorc_label_trampoline_##n(void (*)(void*), void*);

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
    uint64_t sorted[kTrampolineCount];
    for (uint32_t i = 0; i < kTrampolineCount; ++i)
      sorted[i] = reinterpret_cast<uint64_t>(kTable[i]);
    std::sort(sorted, sorted + kTrampolineCount);
    uint64_t stop = reinterpret_cast<uint64_t>(__stop_andweorc_trampolines);
    for (uint32_t i = 0; i < kTrampolineCount; ++i) {
      uint64_t start = reinterpret_cast<uint64_t>(kTable[i]);
      const uint64_t* next =
          std::upper_bound(sorted, sorted + kTrampolineCount, start);
      r[i] = CodeRange{start, next == sorted + kTrampolineCount ? stop : *next};
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
