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

}  // namespace

std::string choose_mechanism(const std::string& wanted, const ProbeSite& site,
                             size_t site_count, std::string* error) {
  std::string why;
  if (wanted == "auto" || wanted == "uprobe") {
    std::string e = try_uprobe(site);
    if (e.empty()) return "uprobe";
    why = e + " (uprobes need root or CAP_PERFMON)";
    if (wanted == "uprobe") {
      *error = "--probe-mechanism uprobe: " + why;
      return "";
    }
  }
  std::string e = try_breakpoint();
  if (!e.empty()) {
    why += fmt::format("{}{} (kernel.perf_event_paranoid > 2 forbids it)",
                       why.empty() ? "" : "; ", e);
  } else if (site_count > kMaxBreakpoints) {
    why += fmt::format(
        "{}breakpoint: {} addresses to count, the CPU has {} hardware "
        "breakpoints",
        why.empty() ? "" : "; ", site_count, kMaxBreakpoints);
  } else {
    return "breakpoint";
  }
  *error = "cannot count probe hits: " + why;
  return "";
}

}  // namespace andweorc::probes
