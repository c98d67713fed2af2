// mechanism.cc: tries a uprobe and a hardware breakpoint counting event on
// the tool's own process, as the runtime will in the program.
#include "probes/mechanism.h"

#include <fmt/format.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace andweorc::probes {
namespace {

int perf_open(perf_event_attr* attr) {
  return int(
      syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string try_uprobe(const ProbeSite& site) {
  std::ifstream in("/sys/bus/event_source/devices/uprobe/type");
  int type = -1;
  if (!(in >> type))
    return "no uprobe event source (/sys/bus/event_source/devices/uprobe)";
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = uint32_t(type);
  attr.config1 = reinterpret_cast<uint64_t>(site.path.c_str());
  attr.config2 = site.offset;
  attr.exclude_kernel = 1;
  attr.disabled = 1;
  int fd = perf_open(&attr);
  if (fd < 0) return fmt::format("uprobe: {}", std::strerror(errno));
  close(fd);
  return "";
}

void breakpoint_target() { asm volatile(""); }

std::string try_breakpoint() {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = HW_BREAKPOINT_X;
  attr.bp_addr = reinterpret_cast<uint64_t>(&breakpoint_target);
  attr.bp_len = sizeof(long);
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 1;
  int fd = perf_open(&attr);
  if (fd < 0) return fmt::format("breakpoint: {}", std::strerror(errno));
  close(fd);
  return "";
}

// Why `count` addresses cannot be breakpoints, or "".
std::string breakpoints_refused(size_t count) {
  if (count == 0) return "";
  std::string e = try_breakpoint();
  if (!e.empty()) return e + " (kernel.perf_event_paranoid > 2 forbids it)";
  if (count > kMaxBreakpoints)
    return fmt::format(
        "breakpoint: {} addresses to count, the CPU has {} hardware "
        "breakpoints",
        count, kMaxBreakpoints);
  return "";
}

}  // namespace

bool uprobe_refuses_instruction(const uint8_t* code, size_t len) {
  for (size_t i = 0; i < len && i < 15; ++i) {
    switch (code[i]) {
      case 0xf0:
      case 0x26:
      case 0x2e:
      case 0x36:
      case 0x3e:
        return true;  // LOCK, ES, CS, DS, SS: refused
      case 0xf2:
      case 0xf3:
      case 0x64:
      case 0x65:
      case 0x66:
      case 0x67:
        continue;  // other legacy prefixes: look further
      default:
        return false;  // the opcode (or REX) ends the prefixes
    }
  }
  return false;
}

std::string choose_mechanism(const std::string& wanted,
                             const std::vector<ProbeSite>& sites,
                             std::string* error) {
  // auto: hardware breakpoints first. Per hit both cost the same here
  // (bench/probes/probe_cost.cc), but an inherited uprobe event costs ~90 ms
  // at every thread start and exit of the program, per address
  // (docs/probes.md), and a breakpoint costs nothing there. Uprobes when
  // there are more addresses than debug registers.
  std::string bp_why;
  if (wanted == "auto" || wanted == "breakpoint") {
    bp_why = breakpoints_refused(sites.size());
    if (bp_why.empty()) return "breakpoint";
    if (wanted == "breakpoint") {
      *error = "cannot count probe hits: " + bp_why;
      return "";
    }
  }
  std::string e = try_uprobe(sites.front());
  size_t refused = 0;
  for (const auto& s : sites) refused += s.uprobe_refuses;
  if (e.empty()) {
    std::string bp = breakpoints_refused(refused);
    if (bp.empty()) return "uprobe";
    e = fmt::format(
        "uprobe: {} address(es) hold instructions uprobes refuse (LOCK or "
        "segment prefix) and need hardware breakpoints: {}",
        refused, bp);
  } else {
    e += " (uprobes need root or CAP_PERFMON)";
  }
  if (wanted == "uprobe")
    *error = "--probe-mechanism uprobe: " + e;
  else
    *error = fmt::format("cannot count probe hits: {}; {}", bp_why, e);
  return "";
}

}  // namespace andweorc::probes
