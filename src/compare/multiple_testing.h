// multiple_testing.h: Benjamini-Hochberg q-values, so that a diff that runs
// one test per line and per progress point does not raise false alarms
// just because it runs many tests.
//
// Contract: bh_qvalues(p)[i] is the smallest false-discovery rate at which
// test i would be rejected by the Benjamini-Hochberg step-up procedure over
// all of `p`: q_(i) = min over j >= i of p_(j) * m / j (sorted ascending,
// 1-based), capped at 1. Rejecting every test with q < alpha controls the
// false-discovery rate at alpha for independent (or positively dependent)
// tests; when every null hypothesis is true (an A/A comparison) the FDR is
// the probability of any rejection, so the chance of a false alarm is at
// most alpha. Non-finite p-values are treated as 1.
#ifndef ANDWEORC_COMPARE_MULTIPLE_TESTING_H_
#define ANDWEORC_COMPARE_MULTIPLE_TESTING_H_

#include <vector>

namespace andweorc::compare {

std::vector<double> bh_qvalues(const std::vector<double>& p);

}  // namespace andweorc::compare

#endif  // ANDWEORC_COMPARE_MULTIPLE_TESTING_H_
