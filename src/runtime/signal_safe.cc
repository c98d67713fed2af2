// signal_safe.cc: helpers usable from signal handlers.
#include "runtime/signal_safe.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

namespace andweorc::runtime {

ANDWEORC_SIGNAL_SAFE bool write_all(int fd, const void* buf, size_t len) {
  const char* p = static_cast<const char*>(buf);
  while (len > 0) {
    long n = raw_syscall(SYS_write, fd, long(p), long(len));
    if (n < 0) {
      if (n == -EINTR) continue;
      return false;
    }
    p += n;
    len -= size_t(n);
  }
  return true;
}

ANDWEORC_SIGNAL_SAFE size_t format_u64(uint64_t v, char* out, size_t cap) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = char('0' + v % 10);
    v /= 10;
  } while (v != 0);
  if (n > cap) return 0;
  for (size_t i = 0; i < n; ++i) out[i] = tmp[n - 1 - i];
  return n;
}

ANDWEORC_SIGNAL_SAFE size_t append_str(char* out, size_t cap, size_t len,
                                       const char* s) {
  if (cap == 0) return 0;
  while (*s && len + 1 < cap) out[len++] = *s++;
  out[len] = '\0';
  return len;
}

void SpinLock::lock() {
  while (!try_lock()) sched_yield();
}

}  // namespace andweorc::runtime
