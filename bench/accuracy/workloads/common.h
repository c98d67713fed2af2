// common.h: shared plumbing of the accuracy workloads (not the regions: each
// region's hot loop is written out on its own line in its workload's file, so
// that "the line" a profiler reports and the region are the same thing).
//
// Contract of every workload (see bench/accuracy/README.md):
//   accuracy_<name> [units]      fixed amount of WORK, not time
//   env ANDWEORC_SCALE_<REGION>  multiplies that region's iterations
//                                (0.8 = the region is 20% faster), default 1
//   prints one line at exit: units=<n> seconds=<wall> throughput=<units/s>
#ifndef ANDWEORC_BENCH_ACCURACY_COMMON_H_
#define ANDWEORC_BENCH_ACCURACY_COMMON_H_

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace accuracy {

// Region work is a dependent xorshift-multiply chain: ~5 cycles an iteration
// that can neither be vectorized nor folded (the empty asm hides x's value).
// This constant is the multiplier every region uses.
constexpr uint64_t kMul = 0xBF58476D1CE4E5B9ull;

[[noreturn]] inline void die(const char* what, const char* detail) {
  std::fprintf(stderr, "accuracy workload: %s: %s\n", what, detail);
  std::exit(2);
}

// Scale of a region from ANDWEORC_SCALE_<NAME> (upper-case name).
inline double scale_of(const char* upper_name) {
  char var[128];
  std::snprintf(var, sizeof var, "ANDWEORC_SCALE_%s", upper_name);
  const char* v = std::getenv(var);
  if (!v || !*v) return 1.0;
  char* end = nullptr;
  double s = std::strtod(v, &end);
  if (*end != '\0' || !(s >= 0.0) || s > 100.0) die(var, "expected a number in [0, 100]");
  return s;
}

// Iterations of a region per call: base * scale, rounded.
inline uint64_t iterations(uint64_t base, const char* upper_name) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(base) * scale_of(upper_name)));
}

// Units of work: argv[1] if given, else the workload's default.
inline uint64_t units_arg(int argc, char** argv, uint64_t fallback) {
  if (argc < 2) return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(argv[1], &end, 10);
  if (*end != '\0' || n == 0) die("units", "expected a positive integer as the first argument");
  return n;
}

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// The one result line every workload prints; `sink` keeps the regions' results
// alive (printed to stderr only if it happens to be 0, which it never is).
inline void report(uint64_t units, const Stopwatch& sw, uint64_t sink) {
  double s = sw.seconds();
  if (sink == 0) std::fprintf(stderr, "sink=0\n");
  std::printf("units=%" PRIu64 " seconds=%.6f throughput=%.3f\n", units, s, units / s);
  std::fflush(stdout);
}

}  // namespace accuracy

#endif  // ANDWEORC_BENCH_ACCURACY_COMMON_H_
