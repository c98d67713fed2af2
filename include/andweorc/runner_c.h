/* runner_c.h: andweorc as a library, from C (C++: see runner.h).
 *
 *   andweorc_init();                          // no-op unless
 * ANDWEORC_ENABLED=1
 *   ... start the workload's threads; mark progress points (andweorc.h) ...
 *   andweorc_runner_t* r = andweorc_runner_new();
 *   andweorc_results_t* res = andweorc_runner_run(r, "item_done");
 *   for (size_t i = 0; i < andweorc_results_impact_count(res); ++i) {
 *     andweorc_impact_t im;
 *     andweorc_results_impact(res, i, &im);   // ranked, significant first
 *   }
 *   andweorc_results_write(res, "profile.json");   // `andweorc report` reads
 * it andweorc_results_free(res); andweorc_runner_free(r);
 *
 * Link with -landweorc (pkg-config andweorc, or CMake andweorc::andweorc).
 * Every function is safe to call when profiling is off: run() then returns
 * results whose error says so, at no cost to the program.
 */
#ifndef ANDWEORC_RUNNER_C_H_
#define ANDWEORC_RUNNER_C_H_

#include <stddef.h>
#include <stdint.h>

#include "andweorc/andweorc.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ANDWEORC_API __attribute__((visibility("default")))

/* andweorc_init results. */
#define ANDWEORC_INIT_DISABLED 0 /* not enabled: nothing started */
#define ANDWEORC_INIT_STARTED 1  /* sampling this process from now on */
#define ANDWEORC_INIT_ALREADY \
  2 /* already running (init before, or `andweorc run`) */
#define ANDWEORC_INIT_FAILED 3 /* enabled, but the runtime could not start */

/* Starts profiling when ANDWEORC_ENABLED=1; otherwise does nothing.
 * Threads created afterwards are profiled automatically. */
ANDWEORC_API int andweorc_init(void);
/* The same, enabled from code when `enabled` != 0. sample_period_ns: CPU
 * time between samples (0: 1 ms; at least 100 us). */
ANDWEORC_API int andweorc_init_with(int enabled, uint64_t sample_period_ns);
/* Profiles the calling thread, for threads that existed before init.
 * Returns 1 when the thread is profiled, 0 when profiling is off. */
ANDWEORC_API int andweorc_start_profiling(void);
/* 1 when profiling is on in this process. */
ANDWEORC_API int andweorc_enabled(void);

typedef struct andweorc_runner andweorc_runner_t;
typedef struct andweorc_results andweorc_results_t;

/* One line's estimate. Strings live as long as the results. */
typedef struct andweorc_impact {
  const char* file;
  int line;
  const char* function;
  double slope;  /* program speed-up per unit of line speed-up */
  double ci_low; /* 95% confidence interval of the slope */
  double ci_high;
  double r2;
  int experiments; /* in the fit, 0% baselines included */
  int significant; /* the interval excludes 0 with enough experiments */
  const char* verdict;
} andweorc_impact_t;

ANDWEORC_API andweorc_runner_t* andweorc_runner_new(void);
ANDWEORC_API void andweorc_runner_free(andweorc_runner_t* r);
/* Setters return 0, or -1 (leaving the setting unchanged) for a value out of
 * range; runner.h documents each setting and its default. */
ANDWEORC_API int andweorc_runner_set_progress_point(andweorc_runner_t* r,
                                                    const char* name);
ANDWEORC_API int andweorc_runner_set_round_duration_ns(andweorc_runner_t* r,
                                                       uint64_t ns);
ANDWEORC_API int andweorc_runner_set_warmup_ns(andweorc_runner_t* r,
                                               uint64_t ns);
ANDWEORC_API int andweorc_runner_set_baseline_rounds(andweorc_runner_t* r,
                                                     int rounds);
ANDWEORC_API int andweorc_runner_set_speedups(andweorc_runner_t* r,
                                              const int* percent, size_t n);
ANDWEORC_API int andweorc_runner_set_max_lines(andweorc_runner_t* r, int n);
ANDWEORC_API int andweorc_runner_set_repetitions(andweorc_runner_t* r, int n);
ANDWEORC_API int andweorc_runner_set_seed(andweorc_runner_t* r, uint64_t seed);

/* Runs the experiments (blocks for their duration) and analyzes them for
 * `point` (NULL: the configured progress point). Never NULL but when out of
 * memory. */
ANDWEORC_API andweorc_results_t* andweorc_runner_run(andweorc_runner_t* r,
                                                     const char* point);

/* 1 when the run produced estimates; else andweorc_results_error says why. */
ANDWEORC_API int andweorc_results_ok(const andweorc_results_t* res);
ANDWEORC_API const char* andweorc_results_error(const andweorc_results_t* res);
ANDWEORC_API size_t
andweorc_results_impact_count(const andweorc_results_t* res);
ANDWEORC_API size_t
andweorc_results_significant_count(const andweorc_results_t* res);
/* The i-th impact by rank (significant ones first). 0 on success, -1 when i
 * is out of range. */
ANDWEORC_API int andweorc_results_impact(const andweorc_results_t* res,
                                         size_t i, andweorc_impact_t* out);
/* Writes the profile (andweorc's JSON format). 0 on success, else -1 and
 * a message on standard error. */
ANDWEORC_API int andweorc_results_write(const andweorc_results_t* res,
                                        const char* path);
/* Prints the ranked lines to standard error. */
ANDWEORC_API void andweorc_results_print(const andweorc_results_t* res,
                                         size_t top);
ANDWEORC_API void andweorc_results_free(andweorc_results_t* res);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ANDWEORC_RUNNER_C_H_ */
