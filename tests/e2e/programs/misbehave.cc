// Programs that end badly or fight the profiler, one per argv[1] mode:
//   segv | abort | thread-exit | fork | exec <path> | until-signal |
//   hostile-signals | thread-names (prints the name of each of its threads
//   but the main one, sorted: what a program that lists its threads sees)
// Each burns CPU in burn() first, so there is something to sample.
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
#include <algorithm>

volatile uint64_t g_sink;
volatile sig_atomic_t g_stop = 0;

static double cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void burn(int ms) {
  double start_ms = cpu_ms();
  // CPU time, not wall time: a loaded machine stretches the run but the
  // number of samples (one per ms of CPU) stays put.
  uint64_t h = 1;
  while (cpu_ms() < start_ms + ms && !g_stop) {
    for (int i = 0; i < 10000; ++i) h = h * 2862933555777941757ull + 3;  // BURN_LINE
  }
  g_sink = h;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "thread-names")) {
    burn(300);
    DIR* d = opendir("/proc/self/task");
    std::vector<std::string> names;
    while (dirent* e = d ? readdir(d) : nullptr) {
      if (e->d_name[0] == '.' || atoi(e->d_name) == getpid()) continue;
      std::string path = std::string("/proc/self/task/") + e->d_name + "/comm";
      char name[32] = "";
      if (FILE* f = fopen(path.c_str(), "r")) {
        if (fgets(name, sizeof name, f) != nullptr) names.push_back(name);
        fclose(f);
      }
    }
    if (d) closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) fputs(n.c_str(), stdout);
    return 0;
  }
  if (!strcmp(mode, "segv")) {
    burn(300);
    std::fflush(stdout);
    volatile int* p = nullptr;
    return *p;
  }
  if (!strcmp(mode, "abort")) {
    burn(300);
    std::abort();
  }
  if (!strcmp(mode, "thread-exit")) {
    std::thread t([] {
      burn(300);
      std::exit(3);
    });
    t.join();
    return 0;
  }
  if (!strcmp(mode, "fork")) {
    pid_t pid = fork();
    if (pid == 0) {
      burn(300);
      _exit(0);
    }
    burn(300);
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("child exited %d\n", WEXITSTATUS(status));
    return 0;
  }
  if (!strcmp(mode, "exec") && argc > 2) {
    burn(200);
    execv(argv[2], argv + 2);
    std::perror("execv");
    return 1;
  }
  if (!strcmp(mode, "until-signal")) {
    std::printf("ready\n");
    std::fflush(stdout);
    while (true) burn(100);
  }
  if (!strcmp(mode, "hostile-signals")) {
    // Block every signal and try to take SIGPROF: sampling must go on.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    signal(SIGPROF, SIG_IGN);
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPROF, &sa, nullptr);
    struct sigaction seen {};
    sigaction(SIGPROF, nullptr, &seen);
    burn(400);
    std::printf("sigprof seen as %s\n", seen.sa_handler == SIG_IGN ? "ignored" : "other");
    return 0;
  }
  std::fprintf(stderr, "unknown mode\n");
  return 1;
}
