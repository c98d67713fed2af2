// switch_probe: one thread that blocks every ~30 us of CPU (usleep) and one
// that only computes, then another blocking one (in the slot the computing
// one left); each then reports whether a POSIX timer notifies it
// (/proc/self/timers), i.e. whether the runtime moved it from its perf event
// to the CPU-time timer sampler (perf_sampler.h, perf_watch_switches).
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <thread>

namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

void spin(double seconds) {
  double end = now() + seconds;
  while (now() < end) {
  }
}

// "yes" when a timer in /proc/self/timers notifies this thread.
const char* has_timer() {
  std::string me = "tid." + std::to_string(syscall(SYS_gettid)) + "\n";
  FILE* f = fopen("/proc/self/timers", "r");
  if (f == nullptr) return "unknown";
  char line[256];
  bool found = false;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "notify:") && strstr(line, me.c_str())) found = true;
  fclose(f);
  return found ? "yes" : "no";
}

}  // namespace

int main() {
  std::thread blocking([] {
    for (int i = 0; i < 3000; ++i) {
      spin(30e-6);
      usleep(20);
    }
    printf("blocking thread timer=%s\n", has_timer());
  });
  blocking.join();
  std::thread computing([] {
    spin(0.2);
    printf("computing thread timer=%s\n", has_timer());
  });
  computing.join();
  // Takes the slot the computing thread left while still on perf (its
  // perf_stop marked the slot's event as stopping): the mark must not
  // outlive that event and keep this thread from moving.
  std::thread reuse([] {
    for (int i = 0; i < 3000; ++i) {
      spin(30e-6);
      usleep(20);
    }
    printf("blocking thread after a computing one timer=%s\n", has_timer());
  });
  reuse.join();
  return 0;
}
