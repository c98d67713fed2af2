// finish_guard_test.cc: a stop signal while the profile is being written is
// noted, not fatal; a second one is; the old dispositions come back.
#include "cli/finish_guard.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

namespace andweorc::cli {
namespace {

TEST(FinishGuard, TheFirstStopSignalIsNotedAndTheWorkGoesOn) {
  {
    FinishGuard g;
    EXPECT_EQ(FinishGuard::received(), 0);
    raise(SIGTERM);  // would end the test binary without the guard
    EXPECT_EQ(FinishGuard::received(), SIGTERM);
  }
}

TEST(FinishGuardDeathTest, ASecondSignalEndsTheToolAsItsDefaultWould) {
  EXPECT_EXIT(
      {
        FinishGuard g;
        raise(SIGTERM);
        raise(SIGTERM);
        _exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "writing its profile");
}

TEST(FinishGuard, RestoresThePreviousDispositions) {
  struct sigaction ign {
  }, before{}, after{};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGHUP, &ign, &before);
  {
    FinishGuard g;
    struct sigaction inside {};
    sigaction(SIGHUP, nullptr, &inside);
    EXPECT_NE(inside.sa_handler, SIG_IGN);
  }
  sigaction(SIGHUP, &before, &after);
  EXPECT_EQ(after.sa_handler, SIG_IGN);
}

}  // namespace
}  // namespace andweorc::cli
