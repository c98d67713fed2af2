// dlclose_reuse.cc: issue 12 item 9. Loads plugin A, spends 250 ms in it,
// unloads it, loads plugin B (same size: it takes A's place), spends 250 ms
// there and unloads it too. A's samples must be A's, and B's B's: with only
// the last maps snapshot, A's were read as B's (or as nothing once B was
// gone too). Says on stderr whether B really took A's address.
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

using Loop = unsigned long (*)(long);

static uintptr_t run_plugin(const char* path, const char* name) {
  void* lib = dlopen(path, RTLD_NOW);
  if (lib == nullptr) return 0;
  auto loop = reinterpret_cast<Loop>(dlsym(lib, name));
  if (loop == nullptr) return 0;
  unsigned long x = loop(250);
  (void)x;
  dlclose(lib);
  return reinterpret_cast<uintptr_t>(loop);
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  uintptr_t a = run_plugin(argv[1], "swap_plugin_a_loop");
  uintptr_t b = run_plugin(argv[2], "swap_plugin_b_loop");
  printf("plugins ran: %s\n", a != 0 && b != 0 ? "yes" : "no");
  fprintf(stderr, "same address: %s\n", a == b ? "yes" : "no");
  return 0;
}
