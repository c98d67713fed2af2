// shlib_user.cc: calls functions of its shared library libshlib_work.so a
// known number of times (tests/e2e/shlib_probes_test.cc): `shlib_user N
// [threads]` calls dso_work N times (with `threads`, the first half in a
// second thread), dso_tiny once, and prints "calls N".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

int dso_work(int x);
int dso_tiny(int x);

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 100;
  bool threads = argc > 2 && std::strcmp(argv[2], "threads") == 0;
  volatile int sink = 0;
  int first = 0;
  if (threads) {
    std::thread other([&] {
      for (int i = 0; i < n / 2; ++i) sink = sink + dso_work(i);
    });
    other.join();  // one at a time: dso_work's sum is not atomic
    first = n / 2;
  }
  for (int i = first; i < n; ++i) sink = sink + dso_work(i);
  sink = sink + dso_tiny(n);  // TINY_CALL_LINE
  std::printf("calls %d\n", n);
  return 0;
}
