// Progress points through Coz's own coz.h (binary compatibility) and
// andweorc.h, with counts known by construction.
#include <andweorc/andweorc.h>
#include <coz.h>

#include <cstdio>
#include <thread>

int main() {
  auto work = [] {
    for (int i = 0; i < 1000; ++i) {
      COZ_BEGIN("coz_txn");
      COZ_PROGRESS_NAMED("coz_item");
      COZ_END("coz_txn");
      ANDWEORC_PROGRESS("own_item");
      { ANDWEORC_LATENCY_SCOPE("own_txn"); }
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  std::printf("points done\n");
  return 0;
}
