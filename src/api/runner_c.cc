// runner_c.cc: the C API (runner_c.h) over andweorc::Runner. No exception
// crosses into C: every entry point catches and reports instead.
#include <chrono>
#include <iostream>
#include <new>

#include "andweorc/runner.h"

struct andweorc_runner {
  andweorc::Runner runner;
};

struct andweorc_results {
  andweorc::Results results;
  std::string error;  // a C-side failure (e.g. out of memory)
};

namespace {

bool positive_int(int v) { return v >= 1; }

}  // namespace

extern "C" {

andweorc_runner_t* andweorc_runner_new(void) {
  return new (std::nothrow) andweorc_runner();
}

void andweorc_runner_free(andweorc_runner_t* r) { delete r; }

int andweorc_runner_set_progress_point(andweorc_runner_t* r, const char* name) {
  if (r == nullptr || name == nullptr || *name == '\0') return -1;
  try {
    r->runner.config().progress_point = name;
  } catch (...) {
    return -1;
  }
  return 0;
}

int andweorc_runner_set_round_duration_ns(andweorc_runner_t* r, uint64_t ns) {
  if (r == nullptr || ns < 1000000) return -1;
  r->runner.config().round_duration = std::chrono::nanoseconds(ns);
  return 0;
}

int andweorc_runner_set_warmup_ns(andweorc_runner_t* r, uint64_t ns) {
  if (r == nullptr) return -1;
  r->runner.config().warmup = std::chrono::nanoseconds(ns);
  return 0;
}

int andweorc_runner_set_baseline_rounds(andweorc_runner_t* r, int rounds) {
  if (r == nullptr || rounds < 0) return -1;
  r->runner.config().baseline_rounds = rounds;
  return 0;
}

int andweorc_runner_set_speedups(andweorc_runner_t* r, const int* percent,
                                 size_t n) {
  if (r == nullptr || percent == nullptr || n == 0) return -1;
  for (size_t i = 0; i < n; ++i)
    if (percent[i] < 0 || percent[i] > 100) return -1;
  try {
    r->runner.config().speedups.assign(percent, percent + n);
  } catch (...) {
    return -1;
  }
  return 0;
}

int andweorc_runner_set_max_lines(andweorc_runner_t* r, int n) {
  if (r == nullptr || !positive_int(n)) return -1;
  r->runner.config().max_lines = n;
  return 0;
}

int andweorc_runner_set_repetitions(andweorc_runner_t* r, int n) {
  if (r == nullptr || !positive_int(n)) return -1;
  r->runner.config().repetitions = n;
  return 0;
}

int andweorc_runner_set_seed(andweorc_runner_t* r, uint64_t seed) {
  if (r == nullptr) return -1;
  r->runner.config().seed = seed;
  return 0;
}

andweorc_results_t* andweorc_runner_run(andweorc_runner_t* r,
                                        const char* point) {
  auto* res = new (std::nothrow) andweorc_results();
  if (res == nullptr) return nullptr;
  try {
    if (r == nullptr)
      res->error = "andweorc_runner_run: no runner";
    else
      res->results = point ? r->runner.run(point) : r->runner.run();
  } catch (const std::exception& e) {
    res->error = std::string("andweorc_runner_run: ") + e.what();
  } catch (...) {
    res->error = "andweorc_runner_run: unexpected error";
  }
  return res;
}

int andweorc_results_ok(const andweorc_results_t* res) {
  return res != nullptr && res->error.empty() && res->results.ok();
}

const char* andweorc_results_error(const andweorc_results_t* res) {
  if (res == nullptr) return "no results";
  return res->error.empty() ? res->results.error().c_str() : res->error.c_str();
}

size_t andweorc_results_impact_count(const andweorc_results_t* res) {
  return res ? res->results.impacts().size() : 0;
}

size_t andweorc_results_significant_count(const andweorc_results_t* res) {
  size_t n = 0;
  if (res)
    for (const auto& i : res->results.impacts()) n += i.significant ? 1 : 0;
  return n;
}

int andweorc_results_impact(const andweorc_results_t* res, size_t i,
                            andweorc_impact_t* out) {
  if (res == nullptr || out == nullptr || i >= res->results.impacts().size())
    return -1;
  const andweorc::Impact& im = res->results.impacts()[i];
  *out = andweorc_impact_t{im.file.c_str(),
                           im.line,
                           im.function.c_str(),
                           im.slope,
                           im.ci_low,
                           im.ci_high,
                           im.r2,
                           im.experiments,
                           im.significant ? 1 : 0,
                           im.verdict.c_str()};
  return 0;
}

int andweorc_results_write(const andweorc_results_t* res, const char* path) {
  if (res == nullptr || path == nullptr) return -1;
  std::string error;
  try {
    if (res->results.write(path, &error)) return 0;
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::cerr << "andweorc: " << error << "\n";
  return -1;
}

void andweorc_results_print(const andweorc_results_t* res, size_t top) {
  if (res == nullptr) return;
  try {
    if (!res->error.empty())
      std::cerr << "andweorc: " << res->error << "\n";
    else
      res->results.print(std::cerr, top);
  } catch (...) {
  }
}

void andweorc_results_free(andweorc_results_t* res) { delete res; }

}  // extern "C"
