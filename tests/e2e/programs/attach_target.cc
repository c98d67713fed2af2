// A program started without andweorc that `andweorc attach` visits
// (attach_test.cc). Two threads run rounds of a known-answer loop until
// standard input reaches end of file (an 's' read starts one more
// worker; a 'g' prints which library the program's `read` is bound to,
// which an attach reroutes to the runtime's wrapper and a detach back to
// libc; 'o', 'w' and 'c' open the library named by ATTACH_TARGET_LIB,
// print where its call to pthread_mutex_lock is bound, and close it);
// then the program checks every
// round's result against the closed form and prints the round count and
// "correct" (a register the visits failed to restore would show here).
// hot_rounds() is ~90% of the CPU time, cold_rounds() the rest; each round
// ends at the line marked in round_done(), which --progress can count.
#include <andweorc/andweorc.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

std::atomic<bool> g_stop{false};

// sum_{k<n} k*k computed the slow way, in 64-bit and in double (so the
// loop keeps live values in general and vector registers).
__attribute__((noinline)) bool hot_rounds(uint64_t n) {
  uint64_t s = 0;
  double d = 0;
  for (uint64_t k = 0; k < n; ++k) {
    s += k * k;
    d += double(k) * double(k);
  }
  uint64_t expect = (n - 1) * n * (2 * n - 1) / 6;
  return s == expect && d == double(expect);
}

__attribute__((noinline)) bool cold_rounds(uint64_t n) {
  uint64_t s = 0;
  for (uint64_t k = 0; k < n; ++k) s += k;
  return s == n * (n - 1) / 2;
}

std::atomic<uint64_t> g_rounds{0}, g_wrong{0};

__attribute__((noinline)) void round_done(bool ok) {
  g_rounds.fetch_add(1, std::memory_order_relaxed);  // ROUND_DONE_LINE
  // Reached long before any attach: dead until the attach revives it.
  ANDWEORC_PROGRESS("annotated");
  if (!ok) g_wrong.fetch_add(1, std::memory_order_relaxed);
}

void worker() {
  while (!g_stop.load(std::memory_order_relaxed)) {
    bool ok = hot_rounds(90000);
    ok = cold_rounds(10000) && ok;
    round_done(ok);
  }
}

int main() {
  std::vector<std::thread> workers;
  workers.emplace_back(worker);
  workers.emplace_back(worker);
  char buf[64];
  void* lib = nullptr;  // ATTACH_TARGET_LIB, between an 'o' and a 'c'
  // Each 's' read starts one more worker (a thread born after an attach).
  for (ssize_t n; (n = read(0, buf, sizeof buf)) > 0;)
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == 's') {
        workers.emplace_back(worker);
      } else if (buf[i] == 'o' && lib == nullptr) {
        // A library loaded now (while attached, in the test): the
        // collector's next pass reroutes its calls.
        lib = dlopen(std::getenv("ATTACH_TARGET_LIB"), RTLD_LAZY);
        if (lib == nullptr) std::printf("dlopen: %s\n", dlerror());
      } else if (buf[i] == 'w' && lib != nullptr) {
        auto where = reinterpret_cast<void* (*)()>(
            dlsym(lib, "got_target_lock_address"));
        Dl_info info{};
        std::printf("lib lock bound in %s\n",
                    where != nullptr && dladdr(where(), &info) != 0 &&
                            info.dli_fname != nullptr
                        ? info.dli_fname
                        : "?");
        std::fflush(stdout);
      } else if (buf[i] == 'c' && lib != nullptr) {
        dlclose(lib);
        lib = nullptr;
      } else if (buf[i] == 'g') {
        // The address comes from this program's GOT, where ld.so (or an
        // attach) wrote it.
        void* volatile bound = reinterpret_cast<void*>(&read);
        Dl_info info{};
        std::printf("read bound in %s\n",
                    dladdr(bound, &info) != 0 && info.dli_fname != nullptr
                        ? info.dli_fname
                        : "?");
        std::fflush(stdout);
      }
  g_stop = true;
  for (auto& w : workers) w.join();
  std::printf("rounds %llu wrong %llu %s\n",
              (unsigned long long)g_rounds.load(),
              (unsigned long long)g_wrong.load(),
              g_wrong.load() == 0 && g_rounds.load() > 0 ? "correct" : "WRONG");
  return g_wrong.load() == 0 ? 0 : 1;
}
