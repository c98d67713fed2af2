// derived_warnings_test.cc: warnings that follow from the numbers.
#include "profile/derived_warnings.h"

#include <gtest/gtest.h>

namespace andweorc::profile {
namespace {

using Strings = std::vector<std::string>;

// `mapped` samples whose leaf has a line, `unmapped` whose leaf has none.
Profile with_samples(uint64_t mapped, uint64_t unmapped) {
  Profile p;
  p.run.sampler = "perf";
  p.frames = {{"f", "/a.c", 3, "/bin/a", false, true},
              {"g", "", 0, "/bin/a", false, true}};
  p.stacks = {{{0}, mapped}, {{1}, unmapped}};
  p.samples = mapped + unmapped;
  return p;
}

TEST(DerivedWarnings, NoneForAHealthyProfile) {
  EXPECT_EQ(derived_warnings(with_samples(90, 10)), Strings{});
}

TEST(DerivedWarnings, LowMappedShare) {
  EXPECT_EQ(derived_warnings(with_samples(12, 88)),
            Strings{"only 12% of samples mapped to a source line: build with "
                    "-g"});
  // Rounded down, so the number never reads as "50%" while below half.
  EXPECT_EQ(derived_warnings(with_samples(4999, 5001)),
            Strings{"only 49% of samples mapped to a source line: build with "
                    "-g"});
  EXPECT_EQ(derived_warnings(with_samples(0, 5)),
            Strings{"only 0% of samples mapped to a source line: build with "
                    "-g"});
  EXPECT_EQ(derived_warnings(with_samples(50, 50)), Strings{});
}

TEST(DerivedWarnings, NothingToSayWithoutSamples) {
  // No samples and lost samples are the ingest code's warnings, not ours.
  Profile p;
  p.run.sampler = "perf";
  p.lost_samples = 3;
  EXPECT_EQ(derived_warnings(p), Strings{});
  Profile q = with_samples(0, 0);
  EXPECT_EQ(derived_warnings(q), Strings{});
}

TEST(DerivedWarnings, AllWarningsPutsProfileWarningsFirstWithoutDuplicates) {
  Profile p = with_samples(1, 9);
  p.warnings = {"sampler note",
                "only 10% of samples mapped to a source line: build with -g",
                "sampler note"};
  EXPECT_EQ(all_warnings(p),
            (Strings{"sampler note",
                     "only 10% of samples mapped to a source line: build "
                     "with -g"}));
}

}  // namespace
}  // namespace andweorc::profile
