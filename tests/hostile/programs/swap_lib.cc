// swap_lib.cc: a plugin built twice (SWAP_LOOP names its function), so the
// two copies have the same size and layout: the second, loaded after the
// first is unloaded, lands at the same address (dlclose_reuse.cc).
#include "common.h"

extern "C" __attribute__((noinline)) unsigned long SWAP_LOOP(long ms) {
  return burn_ms(ms);
}
