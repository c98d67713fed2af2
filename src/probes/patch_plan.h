// patch_plan.h: whether a probe address can be patched with a 5-byte
// `jmp rel32` to a trampoline, decided by decoding the enclosing function
// with Capstone (x86-64), and the relocated displaced instructions.
#ifndef ANDWEORC_PROBES_PATCH_PLAN_H_
#define ANDWEORC_PROBES_PATCH_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace andweorc::probes {

// The size of the jump written over the probe address.
constexpr size_t kPatchJumpBytes = 5;

// One displaced instruction, relocated so that it runs the same from any
// address within +-2 GB of its targets (the runtime's trampoline):
//  'c'  copy `bytes` verbatim (nothing in it depends on where it runs);
//  'r'  copy `bytes`, then set the rel32 field at `fix` so that it points at
//       `target` (an ELF vaddr), relative to the end of the instruction:
//       RIP-relative operands, and jmp/jcc rewritten to their rel32 forms;
//  'C'  a direct call of `target`, emulated as push(site + length) + jmp, so
//       that the callee returns to the original code, not to the trampoline
//       (unwinders and exceptions find the caller's frame); always the last.
struct PatchInsn {
  char kind = 'c';
  std::vector<uint8_t> bytes;
  int fix = -1;
  uint64_t target = 0;
};

struct PatchPlan {
  bool ok = false;
  std::string refusal;            // why not, when !ok
  size_t length = 0;              // displaced bytes (>= 5)
  std::vector<uint8_t> original;  // the displaced bytes as in the file
  std::vector<PatchInsn> insns;
};

// A code range to decode: an enclosing function (or its .cold part).
struct CodeRange {
  uint64_t vaddr = 0;
  std::vector<uint8_t> bytes;
  // vaddr is the function's entry (false for a .cold part): only there may a
  // function with indirect jumps be patched (nothing jumps to an entry but
  // calls and tail calls, which arrive at its first byte).
  bool is_entry = true;
};

// Plans the patch at `site`, inside `function` (which starts at the
// function's entry); `others` are more parts of the same function (a hot/cold
// split) scanned for branches into the patched bytes. Refuses (with the
// reason) when: the site is not at an instruction boundary of a clean linear
// decode; fewer than 5 bytes remain before the function ends or before an
// instruction that ends the flow (ret, jmp, call) too early; a direct branch
// or call anywhere in the function targets a byte after the site's first
// inside the displaced bytes; the function has an indirect jump (a jump table
// whose targets cannot be checked) and the site is not the entry; a displaced
// instruction cannot be relocated (loop/jrcxz, xbegin, an indirect call, an
// int3 already there).
// `until` (non-zero): displace every instruction up to that address (a
// traced function's exit: the bytes that end with its ret), not just the
// first >= 5 bytes.
PatchPlan plan_patch(const CodeRange& function,
                     const std::vector<CodeRange>& others, uint64_t site,
                     uint64_t until = 0);

// One instruction of a linear decode, as --trace's exit scan needs it.
struct InsnInfo {
  uint64_t address = 0;
  size_t size = 0;
  bool ret = false;
  bool jump = false;  // jmp (not jcc)
  bool call = false;
  bool ends_flow = false;      // ret, jmp, call, ud2, hlt
  bool indirect_jump = false;  // jmp through a register or memory
  bool has_target = false;     // a direct branch or call
  uint64_t target = 0;
};

// Decodes `range` linearly with Capstone; false with `error` if a byte does
// not decode.
bool decode_range(const CodeRange& range, std::vector<InsnInfo>* out,
                  std::string* error);

// The runtime's form of a plan (ANDWEORC_PROBES' sixth field):
//   LENGTH:ORIGINALHEX:INSN,INSN...   INSN = cHEX | rHEX/FIX/TARGETHEX |
//   CTARGETHEX
std::string encode_patch(const PatchPlan& plan);

}  // namespace andweorc::probes

#endif  // ANDWEORC_PROBES_PATCH_PLAN_H_
