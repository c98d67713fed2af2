// dlopen_user.cc: loads a library after start-up and calls into it a known
// number of times (tests/e2e/shlib_probes_test.cc, probes in a library the
// program dlopens): `dlopen_user LIB N` loads LIB (libshlib_plugin.so, the
// code of shlib_work.cc), waits 200 ms (the runtime patches waiting probes
// within ~20 ms of a load), calls dso_work N times through dlsym and prints
// "calls N"; `dlopen_user - N` loads nothing and prints "calls 0".
#include <dlfcn.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  int n = std::atoi(argv[2]);
  if (std::strcmp(argv[1], "-") == 0) {
    std::printf("calls 0\n");
    return 0;
  }
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (lib == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  auto work = reinterpret_cast<int (*)(int)>(dlsym(lib, "_Z8dso_worki"));
  if (work == nullptr) return 1;
  timespec pause{0, 200000000L};
  nanosleep(&pause, nullptr);
  volatile int sink = 0;
  for (int i = 0; i < n; ++i) sink = sink + work(i);
  std::printf("calls %d\n", n);
  return 0;
}
