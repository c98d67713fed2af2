// many_threads.cc: 5000 threads alive at once (more than the profiler's
// pool), each passing a progress point, then all joined.
#include <pthread.h>
#include <stdio.h>

#include "andweorc/andweorc.h"

static pthread_barrier_t g_all_up;

static void* worker(void*) {
  ANDWEORC_PROGRESS("thread done");
  pthread_barrier_wait(&g_all_up);
  return nullptr;
}

int main() {
  constexpr int kThreads = 5000;
  static pthread_t threads[kThreads];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_barrier_init(&g_all_up, nullptr, kThreads + 1);
  int started = 0;
  for (auto& t : threads)
    if (pthread_create(&t, &attr, worker, nullptr) == 0) ++started;
  if (started != kThreads) {
    printf("only %d threads started\n", started);
    return 1;
  }
  pthread_barrier_wait(&g_all_up);
  for (auto& t : threads) pthread_join(t, nullptr);
  printf("%d threads done\n", started);
  return 0;
}
