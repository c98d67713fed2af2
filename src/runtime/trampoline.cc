// trampoline.cc: parsing of a patch plan and the trampoline's bytes (see
// trampoline.h for the invariants of the generated code).
#include "runtime/trampoline.h"

#include <string.h>

namespace andweorc::runtime {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Reads hex digits up to a byte not a digit; false on no digit/overflow.
bool read_hex_u64(const char** p, const char* end, uint64_t* out) {
  uint64_t v = 0;
  int n = 0;
  while (*p < end && hex_digit(**p) >= 0) {
    if (++n > 16) return false;
    v = v << 4 | uint64_t(hex_digit(**p));
    ++*p;
  }
  *out = v;
  return n > 0;
}

bool read_dec(const char** p, const char* end, int* out) {
  int v = 0, n = 0;
  while (*p < end && **p >= '0' && **p <= '9') {
    if (++n > 3) return false;
    v = v * 10 + (**p - '0');
    ++*p;
  }
  *out = v;
  return n > 0;
}

// Hex byte pairs up to a non-hex byte; false if odd or more than `cap`.
bool read_bytes(const char** p, const char* end, uint8_t* out, size_t cap,
                size_t* n) {
  *n = 0;
  while (*p + 1 < end && hex_digit((*p)[0]) >= 0 && hex_digit((*p)[1]) >= 0) {
    if (*n == cap) return false;
    out[(*n)++] = uint8_t(hex_digit((*p)[0]) << 4 | hex_digit((*p)[1]));
    *p += 2;
  }
  return *p == end || hex_digit(**p) < 0;
}

bool fits_rel32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

bool put_rel32(uint8_t* field, uint64_t from_end, uint64_t to) {
  int64_t rel = int64_t(to - from_end);
  if (!fits_rel32(rel)) return false;
  int32_t r = int32_t(rel);
  memcpy(field, &r, 4);
  return true;
}

void put_u32(uint8_t* at, uint32_t v) { memcpy(at, &v, 4); }

// Writes displaced instructions [from, to) of `spec` at out+n (running at
// out_addr+n), then, if `jump_back`, the jmp to the code after the patch.
// Returns the new length, 0 if a rel32 cannot reach.
size_t emit_displaced(const PatchSpec& spec, uint64_t bias, uint64_t site,
                      int from, int to, bool jump_back, uint8_t* out,
                      uint64_t out_addr, size_t n) {
  const uint64_t resume = site + spec.length;
  for (int i = from; i < to; ++i) {
    const PatchInsn& insn = spec.insns[i];
    if (insn.kind == 'C') {
      // The call, emulated: the return address is the original code after
      // it, so the callee, its unwinder and exceptions see the real caller.
      // lea rsp,[rsp-8]; mov dword [rsp], lo; mov dword [rsp+4], hi; jmp.
      static const uint8_t kPush[] = {0x48, 0x8d, 0x64, 0x24, 0xf8};
      memcpy(out + n, kPush, sizeof kPush);
      n += sizeof kPush;
      out[n++] = 0xc7, out[n++] = 0x04, out[n++] = 0x24;
      put_u32(out + n, uint32_t(resume));
      n += 4;
      out[n++] = 0xc7, out[n++] = 0x44, out[n++] = 0x24, out[n++] = 0x04;
      put_u32(out + n, uint32_t(resume >> 32));
      n += 4;
      out[n++] = 0xe9;
      if (!put_rel32(out + n, out_addr + n + 4, insn.target + bias)) return 0;
      n += 4;
      continue;
    }
    memcpy(out + n, insn.bytes, insn.len);
    if (insn.kind == 'r' &&
        !put_rel32(out + n + insn.fix, out_addr + n + insn.len,
                   insn.target + bias))
      return 0;
    n += insn.len;
  }
  if (!jump_back) return n;
  out[n++] = 0xe9;  // jmp back after the displaced bytes
  if (!put_rel32(out + n, out_addr + n + 4, resume)) return 0;
  return n + 4;
}

// movdqu [rsp+disp32], xmmN (store) or movdqu xmmN, [rsp+disp32] (load).
size_t emit_movdqu(bool store, int xmm, uint32_t disp, uint8_t* out, size_t n) {
  out[n++] = 0xf3;
  if (xmm >= 8) out[n++] = 0x44;  // REX.R
  out[n++] = 0x0f;
  out[n++] = store ? 0x7f : 0x6f;
  out[n++] = uint8_t(0x84 | (xmm & 7) << 3);  // mod 10, rm 100: SIB follows
  out[n++] = 0x24;                            // base rsp, no index
  put_u32(out + n, disp);
  return n + 4;
}

// Saves the caller-saved state, calls fn(arg, rsp at the hook), restores.
size_t emit_hook_call(uint64_t fn, uint32_t arg, uint8_t* out, size_t n) {
  // lea rsp,[rsp-128] (red zone); pushfq; push rax rcx rdx rsi rdi r8-r11;
  // push rbx: 128 + 11 * 8 = 216 bytes below the hook's rsp.
  static const uint8_t kSave[] = {0x48, 0x8d, 0x64, 0x24, 0x80, 0x9c, 0x50,
                                  0x51, 0x52, 0x56, 0x57, 0x41, 0x50, 0x41,
                                  0x51, 0x41, 0x52, 0x41, 0x53, 0x53};
  memcpy(out + n, kSave, sizeof kSave);
  n += sizeof kSave;
  // mov rbx,rsp; sub rsp,256; and rsp,-16 (rbx is callee-saved: fn keeps it)
  static const uint8_t kAlign[] = {0x48, 0x89, 0xe3, 0x48, 0x81, 0xec, 0x00,
                                   0x01, 0x00, 0x00, 0x48, 0x83, 0xe4, 0xf0};
  memcpy(out + n, kAlign, sizeof kAlign);
  n += sizeof kAlign;
  for (int x = 0; x < 16; ++x)
    n = emit_movdqu(true, x, uint32_t(x * 16), out, n);
  out[n++] = 0xbf;  // mov edi, arg
  put_u32(out + n, arg);
  n += 4;
  // lea rsi,[rbx+216]: the rsp the hook was reached with
  static const uint8_t kSp[] = {0x48, 0x8d, 0xb3, 0xd8, 0x00, 0x00, 0x00};
  memcpy(out + n, kSp, sizeof kSp);
  n += sizeof kSp;
  out[n++] = 0x48, out[n++] = 0xb8;  // movabs rax, fn
  memcpy(out + n, &fn, 8);
  n += 8;
  out[n++] = 0xff, out[n++] = 0xd0;  // call rax
  for (int x = 0; x < 16; ++x)
    n = emit_movdqu(false, x, uint32_t(x * 16), out, n);
  // mov rsp,rbx; pop rbx r11 r10 r9 r8 rdi rsi rdx rcx rax; popfq;
  // lea rsp,[rsp+128]
  static const uint8_t kRestore[] = {0x48, 0x89, 0xdc, 0x5b, 0x41, 0x5b, 0x41,
                                     0x5a, 0x41, 0x59, 0x41, 0x58, 0x5f, 0x5e,
                                     0x5a, 0x59, 0x58, 0x9d, 0x48, 0x8d, 0xa4,
                                     0x24, 0x80, 0,    0,    0};
  memcpy(out + n, kRestore, sizeof kRestore);
  return n + sizeof kRestore;
}

}  // namespace

bool parse_patch_spec(const char* text, size_t len, PatchSpec* out) {
  const char* p = text;
  const char* end = text + len;
  memset(out, 0, sizeof *out);
  int length = 0;
  if (!read_dec(&p, end, &length) || length < 5 || length > kPatchMaxLength ||
      p == end || *p++ != ':')
    return false;
  out->length = uint8_t(length);
  size_t n = 0;
  if (!read_bytes(&p, end, out->original, kPatchMaxLength, &n) ||
      n != size_t(length) || p == end || *p++ != ':')
    return false;
  while (p < end) {
    if (out->count == kPatchMaxInsns) return false;
    PatchInsn& insn = out->insns[out->count++];
    insn.kind = *p++;
    insn.fix = -1;
    if (insn.kind == 'C') {
      if (!read_hex_u64(&p, end, &insn.target)) return false;
    } else if (insn.kind == 'c' || insn.kind == 'r') {
      if (!read_bytes(&p, end, insn.bytes, sizeof insn.bytes, &n) || n == 0)
        return false;
      insn.len = uint8_t(n);
      if (insn.kind == 'r') {
        int fix = 0;
        if (p == end || *p++ != '/' || !read_dec(&p, end, &fix) ||
            fix + 4 > int(n) || p == end || *p++ != '/' ||
            !read_hex_u64(&p, end, &insn.target))
          return false;
        insn.fix = int8_t(fix);
      }
    } else {
      return false;
    }
    // A comma separates; one at the end is an error.
    if (p < end && (*p++ != ',' || p == end)) return false;
  }
  return out->count > 0;
}

size_t build_trampoline(const PatchSpec& spec, uint64_t bias, uint64_t site,
                        uint64_t counter, uint8_t* out, uint64_t out_addr,
                        size_t cap) {
  // Longest case: 23 (count) + 4 x 15 + 25 (call) + 5 (jmp back) < 128.
  if (cap < kTrampolineBytes) return 0;
  size_t n = 0;
  // lea rsp, [rsp-128]: step over the red zone (lea leaves the flags).
  static const uint8_t kSkipRedZone[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
  memcpy(out + n, kSkipRedZone, sizeof kSkipRedZone);
  n += sizeof kSkipRedZone;
  out[n++] = 0x9c;  // pushfq
  // lock add qword [rip+disp32], 1
  static const uint8_t kLockAdd[] = {0xf0, 0x48, 0x83, 0x05};
  memcpy(out + n, kLockAdd, sizeof kLockAdd);
  n += sizeof kLockAdd;
  if (!put_rel32(out + n, out_addr + n + 5, counter)) return 0;
  n += 4;
  out[n++] = 0x01;
  out[n++] = 0x9d;  // popfq
  // lea rsp, [rsp+128]
  static const uint8_t kBack[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0, 0, 0};
  memcpy(out + n, kBack, sizeof kBack);
  n += sizeof kBack;
  return emit_displaced(spec, bias, site, 0, spec.count, true, out, out_addr,
                        n);
}

size_t build_hook_trampoline(const PatchSpec& spec, uint64_t bias,
                             uint64_t site, int at, uint64_t fn, uint32_t arg,
                             uint8_t* out, uint64_t out_addr, size_t cap) {
  // Longest case: 4 x 15 + 25 (call) + 5 + the hook (~360) < 512.
  if (cap < kTrampolineBytes || spec.count < 1) return 0;
  size_t n = 0;
  int split = at == kHookBeforeLast ? spec.count - 1 : 0;
  n = emit_displaced(spec, bias, site, 0, split, false, out, out_addr, n);
  if (n == 0 && split > 0) return 0;
  n = emit_hook_call(fn, arg, out, n);
  n = emit_displaced(spec, bias, site, split, spec.count, true, out, out_addr,
                     n);
  return n;
}

bool jump_bytes(uint64_t site, uint64_t trampoline, uint8_t out[5]) {
  out[0] = 0xe9;
  return put_rel32(out + 1, site + 5, trampoline);
}

}  // namespace andweorc::runtime
