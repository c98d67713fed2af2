// Work in threads made by pthread_create and std::thread; the hot line runs
// only in those threads (see the marker comment in burn).
#include <pthread.h>

#include <time.h>

#include <chrono>
#include <cstdint>
#include <thread>

volatile uint64_t g_sink;

static double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void burn(int ms) {
  double start_ms = cpu_ms();
  // CPU time, not wall time: a loaded machine stretches the run but the
  // number of samples (one per ms of CPU) stays put.
  uint64_t h = 1;
  while (cpu_ms() < start_ms + ms) {
    for (int i = 0; i < 10000; ++i) h = h * 2862933555777941757ull + 3;  // THREAD_HOT_LINE
  }
  g_sink = h;
}

void* posix_thread(void*) {
  burn(300);
  return nullptr;
}

int main() {
  pthread_t t;
  pthread_create(&t, nullptr, posix_thread, nullptr);
  std::thread s([] { burn(300); });
  pthread_join(t, nullptr);
  s.join();
  return 0;
}
