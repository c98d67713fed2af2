// progress_points_test.cc: progress-point totals stay consistent while
// threads exit (issue 12 item 2). A total read while a thread's counts move
// from its live array to the retired sum must count them exactly once, or
// the next delta (a later total minus this one) wraps to ~1.8e19.
#include "runtime/progress_points.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "andweorc/andweorc.h"
#include "runtime/thread_state.h"

extern "C" int andweorc_register_point(int kind, const char* name);

namespace andweorc::runtime {

extern ThreadState g_test_slots[8];

namespace {

TEST(ProgressPoints, TotalsNeverGoBackwardsWhileThreadsExit) {
  int id = andweorc_register_point(ANDWEORC_KIND_THROUGHPUT, "exits");
  ASSERT_GT(id, 0);
  std::atomic<bool> stop{false};
  std::mutex io_lock;  // unregister_current_thread holds io_lock to retire
  // Threads come and go in slot 0: each counts some hits, then exits the
  // way unregister_current_thread does it.
  std::thread churn([&] {
    ThreadState* s = &g_test_slots[0];
    while (!stop.load()) {
      __atomic_store_n(&s->counters, counters_allocate(), __ATOMIC_RELEASE);
      __atomic_store_n(&s->status, int(kLive), __ATOMIC_RELEASE);
      for (int i = 0; i < 10; ++i)
        __atomic_store_n(&s->counters[id], s->counters[id] + 1,
                         __ATOMIC_RELAXED);
      std::lock_guard<std::mutex> guard(io_lock);
      counters_retire(&s->counters);
      __atomic_store_n(&s->status, int(kFree), __ATOMIC_RELEASE);
    }
  });
  uint64_t previous = 0, reads = 0, backwards = 0;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < end) {
    PointTotal t[4];
    ASSERT_GE(points_totals(t, 4), 1);
    if (t[id - 1].total < previous) ++backwards;
    previous = t[id - 1].total;
    ++reads;
  }
  stop = true;
  churn.join();
  EXPECT_EQ(backwards, 0u) << "of " << reads << " reads";
  EXPECT_GT(previous, 0u);
}

}  // namespace
}  // namespace andweorc::runtime
