// trampoline.h: the code of one probe trampoline (count the hit, run the
// relocated displaced instructions, jump back), built from the tool's plan.
// Pure functions on buffers: no allocation, no syscalls (signal-safe).
#ifndef ANDWEORC_RUNTIME_TRAMPOLINE_H_
#define ANDWEORC_RUNTIME_TRAMPOLINE_H_

#include <stddef.h>
#include <stdint.h>

namespace andweorc::runtime {

constexpr int kPatchMaxInsns = 5;         // >= 1 byte each, 5 bytes displaced
constexpr int kPatchMaxLength = 20;       // 4 x 1..4 bytes + one of up to 15
constexpr size_t kTrampolineBytes = 512;  // per site, enough for any plan

// One displaced instruction, as probes/patch_plan.h describes ('c', 'r', 'C').
struct PatchInsn {
  char kind;
  uint8_t len;
  uint8_t bytes[15];
  int8_t fix;       // 'r': offset of the rel32 field
  uint64_t target;  // 'r', 'C': ELF vaddr (the load bias is added)
};

struct PatchSpec {
  uint8_t length;  // displaced bytes
  uint8_t original[kPatchMaxLength];
  int count;
  PatchInsn insns[kPatchMaxInsns];
};

// Parses "LENGTH:ORIGINALHEX:INSN,..." (`len` bytes of `text`); false if bad.
bool parse_patch_spec(const char* text, size_t len, PatchSpec* out);

// Writes the trampoline for the probe at run-time address `site` (ELF vaddr
// + `bias`) into `out` (`cap` bytes), which will run at `out_addr`; the hit
// is counted with `lock add qword [counter], 1`. Returns the bytes written,
// 0 if a rel32 cannot reach (more than 2 GB away) or `cap` is too small.
//
// Invariants of the code (it runs in any thread, at any time, also inside
// the program's signal handlers, and the program knows nothing of it):
//  - registers and flags are preserved: only rsp moves, and back; the flags
//    the add changes are saved with pushfq/popfq;
//  - the red zone: a leaf function may keep data in the 128 bytes below rsp
//    without moving rsp, so rsp moves 128 bytes down before pushfq;
//  - the count is one relaxed atomic add on a counter the runtime reads
//    (probe_hits): no lock, no call, no TLS access, nothing that can block;
//  - the displaced instructions then run with exactly the registers, flags
//    and stack they would have had, and the jump back lands after them.
size_t build_trampoline(const PatchSpec& spec, uint64_t bias, uint64_t site,
                        uint64_t counter, uint8_t* out, uint64_t out_addr,
                        size_t cap);

// Where a trace hook (build_hook_trampoline) calls its function: before the
// displaced instructions (a function's entry), or before the last one (an
// exit: the planned bytes end with the function's `ret`).
enum HookAt { kHookAtEntry = 1, kHookBeforeLast = 2 };

// A trampoline that calls `fn(arg, sp)` instead of counting, with `sp` the
// thread's rsp at that point (at an entry and before a `ret` it points at
// the return address: the same value for one call, which pairs them), then
// runs the displaced instructions and jumps back. Returns the bytes written,
// 0 if it does not fit or a rel32 cannot reach.
//
// Invariants (as build_trampoline's, plus): every caller-saved register
// (rax, rcx, rdx, rsi, rdi, r8-r11, xmm0-15: arguments at an entry, return
// values before a ret) and the flags are saved and restored around the
// call; the call runs on a 16-byte-aligned stack below the red zone; `fn`
// must be async-signal-safe and must not use AVX or x87 state (the runtime
// is compiled without AVX, so the upper halves of ymm stay untouched).
size_t build_hook_trampoline(const PatchSpec& spec, uint64_t bias,
                             uint64_t site, int at, uint64_t fn, uint32_t arg,
                             uint8_t* out, uint64_t out_addr, size_t cap);

// The 5 bytes `jmp rel32` from `site` to `trampoline`; false if too far.
bool jump_bytes(uint64_t site, uint64_t trampoline, uint8_t out[5]);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_TRAMPOLINE_H_
