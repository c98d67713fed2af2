// length_search.cc: see length_search.h (P12).
#include "planner/length_search.h"

#include <algorithm>
#include <cmath>

namespace andweorc::planner {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + long(h), v.end());
  if (v.size() % 2 == 1) return v[h];
  const double above = v[h];
  return (*std::max_element(v.begin(), v.begin() + long(h)) + above) / 2;
}

}  // namespace

int LengthSearch::next(int most) {
  if (!settled_ && (kStep * best_ > most || kStep * best_ > kMostMultiplier))
    settled_ = true;  // nothing longer may be tried
  if (settled_) {
    int m = best_;
    while (m > most && m > 1) m /= kStep;
    return m;
  }
  // Alternate arms, the shorter first: load and drift fall on both alike.
  return shorter_.size() <= longer_.size() ? best_ : kStep * best_;
}

std::vector<double>& LengthSearch::arm(int multiplier) {
  return multiplier == best_ ? shorter_ : longer_;
}

// The mean of an arm's samples, each capped at kWildSample times their
// median: the mean is the efficient estimate of a variance from squared
// differences (the median of one-degree chi-squares wastes two thirds of
// them), the cap keeps a block that straddled a phase of the program from
// deciding alone.
double LengthSearch::cost(int multiplier) {
  const std::vector<double>& v = arm(multiplier);
  const double cap = kWildSample * median(v);
  double sum = 0;
  for (double x : v) sum += std::min(x, cap);
  return sum / double(std::max<size_t>(v.size(), 1)) * multiplier;
}

void LengthSearch::add(int multiplier, double noise) {
  if (settled_ || !std::isfinite(noise) || noise < 0) return;
  if (multiplier != best_ && multiplier != kStep * best_) return;  // an old arm
  arm(multiplier).push_back(noise);
  decide();
}

void LengthSearch::decide() {
  const double n1 = double(shorter_.size()), n2 = double(longer_.size());
  if (n1 < kLeastPairs || n2 < kLeastPairs) return;
  const double shorter = cost(best_), longer = cost(kStep * best_);
  bool wins = false;
  if (shorter > 0 && longer > 0) {
    const double log_ratio = std::log(longer / shorter);
    const double sd = std::sqrt(2 / n1 + 2 / n2);
    if (log_ratio + kZ * sd < 0) {
      wins = true;
    } else if (log_ratio - kZStay * sd > std::log(kBetter)) {
      wins = false;
    } else if (n1 < kMostPairs || n2 < kMostPairs) {
      return;  // undecided: more pairs
    } else {
      wins = log_ratio < std::log(kBetter);
    }
  } else {
    wins = longer < shorter;  // noise 0: the program measures exactly
  }
  if (!wins) {
    settled_ = true;
    return;
  }
  best_ *= kStep;
  shorter_ = std::move(longer_);
  longer_.clear();
  if (kStep * best_ > kMostMultiplier) settled_ = true;
}

}  // namespace andweorc::planner
