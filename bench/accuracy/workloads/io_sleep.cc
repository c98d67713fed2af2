// io_sleep: one request/response round trip per unit. The main thread
// prepares a request (CPU), writes it to a pipe, blocks in read() until a
// "device" thread answers after a fixed 400 us latency (nanosleep), then
// checksums the reply (CPU).
// Work per unit: prepare 120k iterations (~0.25 ms on an idle machine here),
// device ~0.5 ms (sleep + timer slack + wake-ups), checksum 60k (~0.13 ms).
// True effects of speeding by s: share of the unit's wall time * s, i.e.
// about prepare 0.29 s, checksum 0.15 s here (they grow on slower CPUs: the
// blocked time is fixed and cannot be sped up).
// BOTTLENECK:prepare
#include <andweorc/andweorc.h>

#include <time.h>
#include <unistd.h>

#include <thread>

#include "common.h"

using accuracy::kMul;

__attribute__((noinline)) static uint64_t prepare(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:prepare
  return x;
}

__attribute__((noinline)) static uint64_t checksum(uint64_t x, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) { x = (x ^ (x >> 29)) * kMul; asm volatile("" : "+r"(x)); }  // REGION:checksum
  return x;
}

static void write_all(int fd, const void* p, size_t n) {
  if (write(fd, p, n) != static_cast<ssize_t>(n)) accuracy::die("write", "short write on pipe");
}

static bool read_all(int fd, void* p, size_t n) {
  ssize_t r = read(fd, p, n);
  if (r == 0) return false;
  if (r != static_cast<ssize_t>(n)) accuracy::die("read", "short read on pipe");
  return true;
}

int main(int argc, char** argv) {
  const uint64_t units = accuracy::units_arg(argc, argv, 1100);
  const uint64_t n_prep = accuracy::iterations(120000, "PREPARE");
  const uint64_t n_sum = accuracy::iterations(60000, "CHECKSUM");
  int req[2], resp[2];
  if (pipe(req) != 0 || pipe(resp) != 0) accuracy::die("pipe", "failed");
  accuracy::Stopwatch sw;
  std::thread device([&] {
    uint64_t v;
    while (read_all(req[0], &v, sizeof v)) {
      timespec ts{0, 400000};
      nanosleep(&ts, nullptr);
      v = ~v;
      write_all(resp[1], &v, sizeof v);
    }
  });
  uint64_t x = 1;
  for (uint64_t u = 0; u < units; ++u) {
    x = prepare(x + u, n_prep);
    write_all(req[1], &x, sizeof x);
    if (!read_all(resp[0], &x, sizeof x)) accuracy::die("read", "device closed the pipe");
    x = checksum(x, n_sum);
    ANDWEORC_PROGRESS("unit");
  }
  close(req[1]);
  device.join();
  accuracy::report(units, sw, x);
  return 0;
}
