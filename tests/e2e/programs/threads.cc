// Work in threads made by pthread_create and std::thread; the hot line runs
// only in those threads (THREAD_HOT_LINE).
#include <pthread.h>

#include <chrono>
#include <cstdint>
#include <thread>

volatile uint64_t g_sink;

__attribute__((noinline)) void burn(int ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  uint64_t h = 1;
  while (std::chrono::steady_clock::now() < end) {
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
