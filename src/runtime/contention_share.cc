// contention_share.cc: see contention_share.h.
#include "runtime/contention_share.h"

#include <stdlib.h>
#include <string.h>

namespace andweorc::runtime {
namespace {

constexpr uint64_t kMinWindowNs = 2000000;  // shorter windows say little

bool field_after(const char* text, const char* key, uint64_t* value) {
  // Keys start a line; "voluntary_" is also the tail of "nonvoluntary_".
  size_t len = strlen(key);
  for (const char* p = text; (p = strstr(p, key)) != nullptr; p += len) {
    if (p != text && p[-1] != '\n') continue;
    char* end = nullptr;
    *value = strtoull(p + len, &end, 10);
    return end != p + len;
  }
  return false;
}

}  // namespace

ContentionMode contention_mode(const char* value) {
  if (value == nullptr) return ContentionMode::kOff;
  if (strcmp(value, "1") == 0) return ContentionMode::kPreempted;
  if (strcmp(value, "all") == 0) return ContentionMode::kAllWait;
  return ContentionMode::kOff;
}

uint64_t preempted_wait(uint64_t wait_ns, uint64_t voluntary,
                        uint64_t involuntary) {
  uint64_t switches = voluntary + involuntary;
  if (switches == 0) return wait_ns;
  // 128-bit: a long window's wait (ns) times a switch count can pass 2^64.
  return uint64_t(static_cast<unsigned __int128>(wait_ns) * involuntary /
                  switches);
}

uint32_t contention_scale(uint64_t cpu_ns, uint64_t wait_ns,
                          uint64_t counted_ns, uint32_t previous) {
  if (cpu_ns + wait_ns < kMinWindowNs || cpu_ns == 0) return previous;
  if (counted_ns > wait_ns) counted_ns = wait_ns;
  uint64_t scale = (cpu_ns + counted_ns) * 1024 / cpu_ns;
  return uint32_t(scale > 8 * 1024 ? 8 * 1024 : scale);
}

bool parse_ctxt_switches(const char* status, uint64_t* voluntary,
                         uint64_t* involuntary) {
  return field_after(status, "voluntary_ctxt_switches:", voluntary) &&
         field_after(status, "nonvoluntary_ctxt_switches:", involuntary);
}

}  // namespace andweorc::runtime
