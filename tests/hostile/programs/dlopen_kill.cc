// dlopen_kill.cc: loads a plugin after start-up, spends its time there, then
// is killed (SIGKILL: no handler, no exit path). The plugin's samples must
// still be attributed to it.
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (lib == nullptr) {
    printf("dlopen failed\n");
    return 1;
  }
  auto hot = reinterpret_cast<unsigned long (*)(long)>(
      dlsym(lib, "hostile_plugin_hot_loop"));
  printf("plugin loaded\n");
  fflush(stdout);
  unsigned long x = hot(300);
  (void)x;
  usleep(100 * 1000);  // the collector drains the last samples
  raise(SIGKILL);
  return 0;
}
