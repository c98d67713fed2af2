// early_pool.cc: a library whose constructor starts a worker thread, as BLAS
// and OpenMP runtimes do. Linked into early_threads, its constructor runs
// before the preloaded profiler's.
#include <pthread.h>

#include "common.h"

static volatile int g_stop = 0;

static void* pool_worker(void*) {
  while (!g_stop) burn_ms(5);
  return nullptr;
}

static pthread_t g_worker;

__attribute__((constructor)) static void start_pool() {
  pthread_create(&g_worker, nullptr, pool_worker, nullptr);
}

extern "C" void early_pool_stop() {
  g_stop = 1;
  pthread_join(g_worker, nullptr);
}
