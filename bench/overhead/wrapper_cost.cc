// wrapper_cost: ns per uncontended pthread_mutex_lock/unlock pair, the fast
// path of the interposed sync wrappers. Run it natively and with
// LD_PRELOAD=libandweorc.so (no ANDWEORC_DATA_DIR: wrappers, no sampling);
// the difference is what the wrappers add per pair when no experiment runs.
//
//   wrapper_cost [pairs_millions] [rounds] [idle]   prints the fastest round
//
// With a third argument "idle" it first starts a thread that only sleeps:
// glibc drops the lock prefix of its mutexes while a process has a single
// thread, and a profiler's own threads end that (design.md, cost table).
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
volatile uint64_t g_counter = 0;

void* sleep_forever(void*) {
  for (;;) pause();
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  long millions = argc > 1 ? std::atol(argv[1]) : 20;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  if (argc > 3 && std::strcmp(argv[3], "idle") == 0) {
    pthread_t idle;
    if (pthread_create(&idle, nullptr, sleep_forever, nullptr) != 0) return 1;
    pthread_detach(idle);
  }
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    uint64_t t0 = now_ns();
    for (long i = 0; i < millions * 1000000; ++i) {
      pthread_mutex_lock(&g_mutex);
      g_counter = g_counter + 1;
      pthread_mutex_unlock(&g_mutex);
    }
    double ns = double(now_ns() - t0) / double(millions * 1000000);
    if (ns < best) best = ns;
  }
  std::printf("ns_per_pair=%.2f\n", best);
  return 0;
}
