// wrapper_cost: ns per uncontended pthread_mutex_lock/unlock pair, the fast
// path of the interposed sync wrappers. Run it natively and with
// LD_PRELOAD=libandweorc.so (no ANDWEORC_DATA_DIR: wrappers, no sampling);
// the difference is what the wrappers add per pair when no experiment runs.
//
//   wrapper_cost [pairs_millions] [rounds]   prints the fastest round
#include <pthread.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
volatile uint64_t g_counter = 0;

}  // namespace

int main(int argc, char** argv) {
  long millions = argc > 1 ? std::atol(argv[1]) : 20;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
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
