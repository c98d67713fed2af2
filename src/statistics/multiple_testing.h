// multiple_testing.h: Benjamini-Hochberg q-values, the one implementation:
// `diff` runs one test per line and per point, the ranking one per region,
// and neither may raise false alarms just because it runs many tests.
//
// Contract: bh_q_values(p)[i] is the smallest false-discovery rate at which
// test i would be rejected by the Benjamini-Hochberg step-up procedure over
// all of `p`: q_(i) = min over j >= i of p_(j) * m / j (sorted ascending,
// 1-based), capped at 1. Rejecting every test with q < alpha controls the
// false-discovery rate at alpha for independent (or positively dependent)
// tests; when every null hypothesis is true (an A/A comparison) the FDR is
// the probability of any rejection, so the chance of a false alarm is at
// most alpha. Non-finite p-values are treated as 1.
#ifndef ANDWEORC_STATISTICS_MULTIPLE_TESTING_H_
#define ANDWEORC_STATISTICS_MULTIPLE_TESTING_H_

#include <vector>

namespace andweorc::experiments {

std::vector<double> bh_q_values(const std::vector<double>& p);

}  // namespace andweorc::experiments

#endif  // ANDWEORC_STATISTICS_MULTIPLE_TESTING_H_
