// hot_lib.cc: a plugin loaded with dlopen after start-up; all the program's
// CPU time is spent in it.
#include "common.h"

extern "C" __attribute__((noinline)) unsigned long hostile_plugin_hot_loop(
    long ms) {
  return burn_ms(ms);
}
