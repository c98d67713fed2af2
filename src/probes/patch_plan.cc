// patch_plan.cc: Capstone decoding of a function to decide and relocate a
// probe's displaced instructions (see patch_plan.h).
#include "probes/patch_plan.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <memory>

namespace andweorc::probes {
namespace {

struct Decoded {
  uint64_t address;
  std::vector<uint8_t> bytes;
  unsigned id;
  bool rip_relative = false;
  int disp_offset = 0;
  int64_t disp = 0;
  bool has_imm_target = false;  // a direct branch/call: `target`
  uint64_t target = 0;
  bool indirect_jump = false;
  bool indirect_call = false;
};

struct Capstone {
  csh handle = 0;
  bool ok = false;
  Capstone() {
    ok = cs_open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK;
    if (ok) cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
  }
  ~Capstone() {
    if (ok) cs_close(&handle);
  }
};

bool is_jcc(unsigned id) {
  switch (id) {
    case X86_INS_JAE:
    case X86_INS_JA:
    case X86_INS_JBE:
    case X86_INS_JB:
    case X86_INS_JE:
    case X86_INS_JGE:
    case X86_INS_JG:
    case X86_INS_JLE:
    case X86_INS_JL:
    case X86_INS_JNE:
    case X86_INS_JNO:
    case X86_INS_JNP:
    case X86_INS_JNS:
    case X86_INS_JO:
    case X86_INS_JP:
    case X86_INS_JS:
      return true;
    default:
      return false;
  }
}

bool is_loop_like(unsigned id) {
  return id == X86_INS_LOOP || id == X86_INS_LOOPE || id == X86_INS_LOOPNE ||
         id == X86_INS_JCXZ || id == X86_INS_JECXZ || id == X86_INS_JRCXZ;
}

// Decodes the whole range linearly; false (with `error`) if a byte does not
// decode (data in the code, or code Capstone does not know).
bool decode(Capstone& cs, const CodeRange& range, std::vector<Decoded>* out,
            std::string* error) {
  std::unique_ptr<cs_insn, void (*)(cs_insn*)> insn(
      cs_malloc(cs.handle), [](cs_insn* i) { cs_free(i, 1); });
  const uint8_t* code = range.bytes.data();
  size_t size = range.bytes.size();
  uint64_t address = range.vaddr;
  while (size > 0) {
    if (!cs_disasm_iter(cs.handle, &code, &size, &address, insn.get())) {
      *error = fmt::format("cannot decode the instruction at {:#x}", address);
      return false;
    }
    Decoded d;
    d.address = insn->address;
    d.bytes.assign(insn->bytes, insn->bytes + insn->size);
    d.id = insn->id;
    const cs_x86& x = insn->detail->x86;
    bool jump = cs_insn_group(cs.handle, insn.get(), CS_GRP_JUMP);
    bool call = cs_insn_group(cs.handle, insn.get(), CS_GRP_CALL);
    for (int i = 0; i < x.op_count; ++i) {
      const cs_x86_op& op = x.operands[i];
      if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP) {
        d.rip_relative = true;
        d.disp = op.mem.disp;
        d.disp_offset = x.encoding.disp_offset;
      }
      if ((jump || call || d.id == X86_INS_XBEGIN) && op.type == X86_OP_IMM) {
        d.has_imm_target = true;
        d.target = uint64_t(op.imm);
      }
    }
    d.indirect_jump = jump && !d.has_imm_target && d.id == X86_INS_JMP;
    d.indirect_call = call && !d.has_imm_target;
    out->push_back(std::move(d));
  }
  return true;
}

// An instruction after which execution does not fall through.
bool ends_flow(const Decoded& d) {
  return d.id == X86_INS_JMP || d.id == X86_INS_RET || d.id == X86_INS_CALL ||
         d.id == X86_INS_UD2 || d.id == X86_INS_HLT;
}

// Relocates one displaced instruction; false with `why` if it cannot be.
bool relocate(const Decoded& d, PatchInsn* out, std::string* why) {
  if (is_loop_like(d.id) || d.id == X86_INS_XBEGIN) {
    *why = fmt::format(
        "the instruction at {:#x} (loop, jrcxz or xbegin) has "
        "no rel32 form to relocate it to",
        d.address);
    return false;
  }
  if (d.id == X86_INS_INT3) {
    *why = fmt::format("an int3 is already at {:#x} (a debugger?)", d.address);
    return false;
  }
  if (d.indirect_call) {
    // The callee would return into the trampoline; unwinding through it
    // would find no frame description.
    *why = fmt::format(
        "an indirect call at {:#x} would return into the "
        "trampoline",
        d.address);
    return false;
  }
  if (d.id == X86_INS_CALL && d.has_imm_target) {
    out->kind = 'C';
    out->target = d.target;
    return true;
  }
  if (d.id == X86_INS_JMP && d.has_imm_target) {
    out->kind = 'r';
    out->bytes = {0xe9, 0, 0, 0, 0};
    out->fix = 1;
    out->target = d.target;
    return true;
  }
  if (is_jcc(d.id) && d.has_imm_target) {
    // The condition is the low nibble of the opcode: 7x rel8 or 0F 8x rel32,
    // the last byte(s) before the displacement.
    size_t n = d.bytes.size();
    uint8_t cc = n >= 6 && d.bytes[n - 6] == 0x0f ? d.bytes[n - 5] & 0x0f
                                                  : d.bytes[n - 2] & 0x0f;
    out->kind = 'r';
    out->bytes = {0x0f, uint8_t(0x80 | cc), 0, 0, 0, 0};
    out->fix = 2;
    out->target = d.target;
    return true;
  }
  if (d.has_imm_target) {
    *why = fmt::format("the relative branch at {:#x} cannot be relocated",
                       d.address);
    return false;
  }
  out->bytes = d.bytes;
  if (d.rip_relative) {
    if (d.disp_offset <= 0 || size_t(d.disp_offset) + 4 > d.bytes.size()) {
      *why = fmt::format(
          "no 32-bit displacement found in the RIP-relative "
          "instruction at {:#x}",
          d.address);
      return false;
    }
    out->kind = 'r';
    out->fix = d.disp_offset;
    out->target = d.address + d.bytes.size() + uint64_t(d.disp);
    return true;
  }
  out->kind = 'c';
  return true;
}

}  // namespace

PatchPlan plan_patch(const CodeRange& function,
                     const std::vector<CodeRange>& others, uint64_t site,
                     uint64_t until) {
  PatchPlan plan;
  Capstone cs;
  if (!cs.ok) {
    plan.refusal = "Capstone cannot open an x86-64 decoder";
    return plan;
  }
  std::vector<Decoded> insns;
  std::string error;
  if (!decode(cs, function, &insns, &error)) {
    plan.refusal = "the enclosing function does not decode cleanly: " + error;
    return plan;
  }
  size_t first = 0;
  while (first < insns.size() && insns[first].address < site) ++first;
  if (first == insns.size() || insns[first].address != site) {
    plan.refusal = fmt::format(
        "{:#x} is not at an instruction boundary of the enclosing function",
        site);
    return plan;
  }
  size_t last = first;  // one past the last displaced instruction
  size_t length = 0;
  while (length < kPatchJumpBytes || site + length < until) {
    if (last > first && ends_flow(insns[last - 1])) {
      plan.refusal = fmt::format(
          "the instruction at {:#x} ends the flow {} byte(s) after the probe; "
          "the jump needs {}",
          insns[last - 1].address, length, kPatchJumpBytes);
      return plan;
    }
    if (last == insns.size()) {
      plan.refusal = fmt::format(
          "the function ends {} byte(s) after {:#x}; the jump needs {}", length,
          site, kPatchJumpBytes);
      return plan;
    }
    const Decoded& d = insns[last];
    length += d.bytes.size();
    ++last;
  }
  // A call must be the last displaced instruction (its return address is
  // the end of the patch); ends_flow above guarantees that.
  const uint64_t end = site + length;
  const bool entry = function.is_entry && site == function.vaddr;
  std::vector<Decoded> more;
  for (const auto& part : others) {
    std::vector<Decoded> decoded;
    if (!decode(cs, part, &decoded, &error)) {
      plan.refusal =
          "a split part of the function does not decode cleanly: " + error;
      return plan;
    }
    more.insert(more.end(), decoded.begin(), decoded.end());
  }
  for (const auto* list : {&insns, &more})
    for (const Decoded& d : *list) {
      if (d.has_imm_target && d.target > site && d.target < end) {
        plan.refusal = fmt::format(
            "the instruction at {:#x} branches to {:#x}, inside the {} bytes "
            "the jump would overwrite",
            d.address, d.target, length);
        return plan;
      }
      if (d.indirect_jump && !entry) {
        plan.refusal = fmt::format(
            "the function has an indirect jump at {:#x} (a jump table?) whose "
            "targets cannot be checked; only its entry can be patched",
            d.address);
        return plan;
      }
    }
  plan.length = length;
  plan.original.assign(
      function.bytes.begin() + std::ptrdiff_t(site - function.vaddr),
      function.bytes.begin() + std::ptrdiff_t(end - function.vaddr));
  for (size_t i = first; i < last; ++i) {
    PatchInsn p;
    if (!relocate(insns[i], &p, &plan.refusal)) {
      plan.insns.clear();
      return plan;
    }
    plan.insns.push_back(std::move(p));
  }
  plan.ok = true;
  return plan;
}

bool decode_range(const CodeRange& range, std::vector<InsnInfo>* out,
                  std::string* error) {
  Capstone cs;
  if (!cs.ok) {
    *error = "Capstone cannot open an x86-64 decoder";
    return false;
  }
  std::vector<Decoded> insns;
  if (!decode(cs, range, &insns, error)) return false;
  for (const Decoded& d : insns) {
    InsnInfo i;
    i.address = d.address;
    i.size = d.bytes.size();
    i.ret = d.id == X86_INS_RET;
    i.jump = d.id == X86_INS_JMP;
    i.call = d.id == X86_INS_CALL;
    i.ends_flow = ends_flow(d);
    i.indirect_jump = d.indirect_jump;
    i.has_target = d.has_imm_target;
    i.target = d.target;
    out->push_back(i);
  }
  return true;
}

std::string encode_patch(const PatchPlan& plan) {
  if (!plan.ok) return "";
  auto hex = [](const std::vector<uint8_t>& bytes) {
    std::string s;
    for (uint8_t b : bytes) s += fmt::format("{:02x}", b);
    return s;
  };
  std::string out = fmt::format("{}:{}:", plan.length, hex(plan.original));
  for (size_t i = 0; i < plan.insns.size(); ++i) {
    const PatchInsn& p = plan.insns[i];
    if (i > 0) out += ',';
    if (p.kind == 'C')
      out += fmt::format("C{:x}", p.target);
    else if (p.kind == 'r')
      out += fmt::format("r{}/{}/{:x}", hex(p.bytes), p.fix, p.target);
    else
      out += "c" + hex(p.bytes);
  }
  return out;
}

}  // namespace andweorc::probes
