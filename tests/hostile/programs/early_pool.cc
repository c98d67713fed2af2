// early_pool.cc: a library whose constructor starts a worker thread, as BLAS
// and OpenMP runtimes do. Linked into early_threads, its constructor runs
// before the preloaded profiler's.
#include <pthread.h>
#include <time.h>

static int g_stop = 0;    // atomic
static int g_chunks = 0;  // atomic: work the worker has done

// About 1-2 ms of pure arithmetic, no calls (g++ may fold it into
// pool_worker, by which name the test finds the worker's samples).
__attribute__((noinline)) static unsigned long pool_spin(unsigned long x) {
  for (int i = 0; i < 2000000; ++i) x = x * 6364136223846793005ul + 1;
  return x;
}

static void* pool_worker(void*) {
  unsigned long x = 1;
  while (!__atomic_load_n(&g_stop, __ATOMIC_ACQUIRE)) {
    x = pool_spin(x);
    __atomic_add_fetch(&g_chunks, 1, __ATOMIC_RELEASE);
  }
  return reinterpret_cast<void*>(x & 0);
}

static pthread_t g_worker;

__attribute__((constructor)) static void start_pool() {
  pthread_create(&g_worker, nullptr, pool_worker, nullptr);
}

// Stops the worker once it has done some work (50 chunks, ~100 ms of CPU),
// however little CPU a loaded machine gave it so far.
extern "C" void early_pool_stop() {
  while (__atomic_load_n(&g_chunks, __ATOMIC_ACQUIRE) < 50) {
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, nullptr);
  }
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  pthread_join(g_worker, nullptr);
}
