/* c_api.c: the C API (andweorc/runner_c.h) from a C program.
 *
 *   c_api run PROFILE    init enabled from code, two pthreads, one Runner
 *                        run; prints "top <function>" and writes PROFILE
 *   c_api existing       a thread that exists before init calls
 *                        andweorc_start_profiling(); prints "top <function>"
 *   c_api setters        checks that out-of-range settings are refused
 *   c_api copies         init() as andweorc_init() sees it, and how many
 *                        copies of libandweorc are loaded
 */
#define _GNU_SOURCE
#include <andweorc/runner_c.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile int g_stop;

/* clang-format off */
__attribute__((noinline)) static uint64_t c_hot_work(uint64_t x) {
  for (int i = 0; i < 50000; ++i) { x = (x ^ (x >> 31)) * 0x9E3779B97F4A7C15ull + 1; __asm__ volatile("" : "+r"(x)); }  /* HOT_LINE */
  return x;
}

__attribute__((noinline)) static uint64_t c_cold_work(uint64_t x) {
  for (int i = 0; i < 5000; ++i) { x = (x ^ (x >> 31)) * 0x9E3779B97F4A7C15ull + 2; __asm__ volatile("" : "+r"(x)); }  /* COLD_LINE */
  return x;
}
/* clang-format on */

static volatile int g_initialized;

static void* worker(void* arg) {
  uint64_t x = (uint64_t)(uintptr_t)arg;
  int profiled = 0;
  while (!__atomic_load_n(&g_stop, __ATOMIC_RELAXED)) {
    /* Made before init(): this thread asks to be profiled itself. */
    if (!profiled && __atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE))
      profiled = andweorc_start_profiling();
    x = c_cold_work(c_hot_work(x));
    ANDWEORC_PROGRESS("c_unit");
  }
  return (void*)(uintptr_t)(x & 1);
}

static int run(const char* path, int threads_first) {
  pthread_t t[2];
  if (threads_first)
    for (int i = 0; i < 2; ++i)
      pthread_create(&t[i], NULL, worker, (void*)(uintptr_t)(i + 1));
  int status = andweorc_init_with(1, 0);
  printf("init %d\n", status);
  __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
  if (!threads_first)
    for (int i = 0; i < 2; ++i)
      pthread_create(&t[i], NULL, worker, (void*)(uintptr_t)(i + 1));
  andweorc_runner_t* r = andweorc_runner_new();
  int speedups[] = {25, 50, 100};
  andweorc_runner_set_progress_point(r, "c_unit");
  andweorc_runner_set_round_duration_ns(r, 150000000);
  andweorc_runner_set_warmup_ns(r, 500000000);
  andweorc_runner_set_speedups(r, speedups, 3);
  andweorc_runner_set_max_lines(r, 2);
  andweorc_runner_set_repetitions(r, 3);
  andweorc_runner_set_baseline_rounds(r, 6);
  andweorc_runner_set_seed(r, 3);
  andweorc_results_t* res = andweorc_runner_run(r, NULL);
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELAXED);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  andweorc_results_print(res, 5);
  int rc = 1;
  if (andweorc_results_ok(res)) {
    andweorc_impact_t top;
    printf("impacts %zu significant %zu\n", andweorc_results_impact_count(res),
           andweorc_results_significant_count(res));
    if (andweorc_results_impact(res, 0, &top) == 0)
      printf("top %s %d %s\n", top.function, top.line,
             top.significant ? "significant" : "not-significant");
    rc = path == NULL || andweorc_results_write(res, path) == 0 ? 0 : 1;
  } else {
    printf("error %s\n", andweorc_results_error(res));
  }
  andweorc_results_free(res);
  andweorc_runner_free(r);
  return rc;
}

static int setters(void) {
  andweorc_runner_t* r = andweorc_runner_new();
  int bad[] = {10, 101};
  int good[] = {10, 20};
  int refused = andweorc_runner_set_round_duration_ns(r, 10) == -1 &&
                andweorc_runner_set_speedups(r, bad, 2) == -1 &&
                andweorc_runner_set_speedups(r, good, 0) == -1 &&
                andweorc_runner_set_max_lines(r, 0) == -1 &&
                andweorc_runner_set_repetitions(r, -1) == -1 &&
                andweorc_runner_set_baseline_rounds(r, -1) == -1 &&
                andweorc_runner_set_progress_point(r, "") == -1;
  int accepted = andweorc_runner_set_speedups(r, good, 2) == 0 &&
                 andweorc_runner_set_round_duration_ns(r, 1000000) == 0;
  /* Profiling is off here: run() says so at once. */
  andweorc_results_t* res = andweorc_runner_run(r, "nothing");
  printf("refused %d accepted %d ok %d error %s\n", refused, accepted,
         andweorc_results_ok(res), andweorc_results_error(res));
  andweorc_results_free(res);
  andweorc_runner_free(r);
  return refused && accepted ? 0 : 1;
}

static int count_copies(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  if (strstr(info->dlpi_name, "libandweorc") != NULL) ++*(int*)data;
  return 0;
}

static int copies(void) {
  int n = 0;
  int status = andweorc_init();
  dl_iterate_phdr(count_copies, &n);
  printf("init %d enabled %d copies %d\n", status, andweorc_enabled(), n);
  for (int i = 0; i < 200; ++i) ANDWEORC_PROGRESS("c_unit");
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "run") == 0) return run(argv[2], 0);
  if (argc == 2 && strcmp(argv[1], "existing") == 0) return run(NULL, 1);
  if (argc == 2 && strcmp(argv[1], "setters") == 0) return setters();
  if (argc == 2 && strcmp(argv[1], "copies") == 0) return copies();
  fprintf(stderr, "usage: c_api run PROFILE | existing | setters | copies\n");
  return 2;
}
