// big_maps.cc: a process with more than 1 MiB of /proc/self/maps (25000
// separate anonymous mappings, as a JIT, a big allocator or thousands of
// thread stacks make), whose CPU time is in a shared library it links
// (issue 12 item 9). Libraries sit above the anonymous mappings, so their
// lines come last in the maps text: a cut snapshot loses them.
#include <stdio.h>
#include <sys/mman.h>

extern "C" unsigned long hostile_plugin_hot_loop(long ms);

int main() {
  int made = 0;
  for (int i = 0; i < 25000; ++i) {
    // Alternating protections keep neighbours from merging into one line.
    int prot = i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
    if (mmap(nullptr, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
        MAP_FAILED)
      ++made;
  }
  unsigned long x = hostile_plugin_hot_loop(300);
  printf("mapped %d %lu\n", made, x & 0);
  return 0;
}
