// Process trees with known answers (issue 15). argv[1] picks the shape:
//   prefork N MS  the parent forks N workers and only waits; each worker
//                 runs worker_work and counts "request" for MS ms of CPU.
//   grandchild    the parent forks a child that forks a grandchild and
//                 exits at once; the parent exits at once too; the
//                 grandchild runs grandchild_work for 400 ms of CPU.
//   killed        the parent forks a worker that runs killed_work for ever;
//                 300 ms later the parent SIGKILLs it, reaps it, and exits.
//   exec MS       the parent forks a child that execs this program as
//                 `execd MS` and only waits; the new image runs worker_work
//                 and counts "request" for MS ms of CPU.
//   leave STATIC  images that leave the profile: a child execs STATIC (a
//                 statically linked program), another execs /bin/true with
//                 an environment of PATH only, and the parent posix_spawns
//                 STATIC; it waits for the three.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "andweorc/andweorc.h"

extern char** environ;

volatile uint64_t g_sink;

long cpu_ms() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

// Seeded from g_sink (volatile), so calls cannot be folded into one.
__attribute__((noinline)) uint64_t worker_work(uint64_t h, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) h = h * 6364136223846793005ull + i;  // WORKER_LINE
  return h;
}

// Seeded from g_sink (volatile), so calls cannot be folded into one.
__attribute__((noinline)) uint64_t grandchild_work(uint64_t h, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) h = h * 2862933555777941757ull + i;  // GRANDCHILD_LINE
  return h;
}

// Seeded from g_sink (volatile), so calls cannot be folded into one.
__attribute__((noinline)) uint64_t killed_work(uint64_t h, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) h = h * 3935559000370003845ull + i;  // KILLED_LINE
  return h;
}

int prefork(int workers, long ms) {
  for (int w = 0; w < workers; ++w) {
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      while (cpu_ms() < ms) {
        g_sink = worker_work(g_sink, 20000);
        ANDWEORC_PROGRESS("request");
      }
      std::exit(0);
    }
  }
  int failed = 0, status;
  while (wait(&status) > 0)
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  return failed;
}

int grandchild() {
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    if (fork() == 0) {
      while (cpu_ms() < 400) g_sink = grandchild_work(g_sink, 20000);
      std::exit(0);
    }
    std::exit(0);  // the grandchild is orphaned: the tool reaps it
  }
  int status;
  waitpid(pid, &status, 0);
  return 0;
}

int killed() {
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0)
    for (;;) g_sink = killed_work(g_sink, 20000);
  timespec ts{0, 300 * 1000 * 1000};
  nanosleep(&ts, nullptr);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : 1;
}

int execd(long ms) {
  while (cpu_ms() < ms) {
    g_sink = worker_work(g_sink, 20000);
    ANDWEORC_PROGRESS("request");
  }
  return 0;
}

int exec_child(const char* ms) {
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    execl("/proc/self/exe", "fork_tree", "execd", ms, nullptr);
    _exit(127);
  }
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int leave(const char* static_program) {
  pid_t a = fork();
  if (a == 0) {
    execl(static_program, "static_child", nullptr);
    _exit(127);
  }
  pid_t b = fork();
  if (b == 0) {
    char path[] = "PATH=/usr/bin:/bin";
    char* const env[] = {path, nullptr};
    execle("/bin/true", "true", nullptr, env);
    _exit(127);
  }
  pid_t c = 0;
  char* const args[] = {const_cast<char*>("static_child"), nullptr};
  if (a < 0 || b < 0 ||
      posix_spawn(&c, static_program, nullptr, nullptr, args, environ) != 0)
    return 1;
  int failed = 0, status;
  while (wait(&status) > 0)
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  return failed;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "prefork";
  if (std::strcmp(mode, "prefork") == 0)
    return prefork(argc > 2 ? std::atoi(argv[2]) : 2,
                   argc > 3 ? std::atol(argv[3]) : 1500);
  if (std::strcmp(mode, "grandchild") == 0) return grandchild();
  if (std::strcmp(mode, "killed") == 0) return killed();
  if (std::strcmp(mode, "exec") == 0)
    return exec_child(argc > 2 ? argv[2] : "800");
  if (std::strcmp(mode, "leave") == 0 && argc > 2) return leave(argv[2]);
  if (std::strcmp(mode, "execd") == 0)
    return execd(argc > 2 ? std::atol(argv[2]) : 800);
  std::fprintf(stderr,
               "usage: fork_tree prefork [N MS]|grandchild|killed|exec [MS]|"
               "leave STATIC\n");
  return 2;
}
