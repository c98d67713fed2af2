// sample_profile.h: the live sampling profile: samples per function (the
// sampled instruction's innermost function, all code, no scope filter) over
// the last `window_s` seconds and over the whole run.
//
// A flat profile, not yet a flame graph: call stacks are not kept. Time is
// the tool's (when a poll saw the samples), so "the last 10 s" is exact to
// a poll (0.25 s).
#ifndef ANDWEORC_LIVE_SAMPLE_PROFILE_H_
#define ANDWEORC_LIVE_SAMPLE_PROFILE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace andweorc::live {

struct FunctionShare {
  std::string function;
  uint64_t samples = 0;  // weighted (a timer overrun stands for several)
  double share = 0;      // of all samples in the same span
};

class SampleProfile {
 public:
  explicit SampleProfile(double window_s = 10) : window_s_(window_s) {}

  // Samples seen at time_s, by function.
  void add(double time_s, const std::map<std::string, uint64_t>& counts);
  // The `top` functions with most samples in (time_s - window_s, time_s],
  // most first (ties by name).
  std::vector<FunctionShare> recent(double time_s, size_t top) const;
  // The same over the whole run.
  std::vector<FunctionShare> total(size_t top) const;
  uint64_t recent_samples(double time_s) const;
  uint64_t total_samples() const { return total_samples_; }
  double window_s() const { return window_s_; }

 private:
  double window_s_;
  // One entry per add(); older than the window are dropped as time passes.
  std::deque<std::pair<double, std::map<std::string, uint64_t>>> recent_;
  std::map<std::string, uint64_t> total_;
  uint64_t total_samples_ = 0;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_SAMPLE_PROFILE_H_
