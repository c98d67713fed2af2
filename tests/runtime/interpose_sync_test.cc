// interpose_sync_test.cc: the interposed pthread_mutex_lock during
// experiments (the real wrapper and delay engine, the rest of the runtime
// stubbed as for interpose_io_test). A free lock is taken with trylock
// first, so what lock returns must not change for any kind of mutex, and
// the delay a blocked locker inherits must not either.
#include <errno.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <thread>

#include "interpose_stubs.h"

namespace andweorc::runtime {
namespace {

constexpr uint64_t kDelay = 3000000;  // 3 ms inserted while the waiter waits

// An experiment runs (the wrappers are armed) for the life of this object;
// the calling thread has an account.
struct Experiment {
  ThreadState self;
  Experiment() {
    g_test_engine.end_experiment();
    g_test_engine.start_experiment(1000000);  // 1 ms per hit
    g_test_self = &self;
    g_test_engine.on_samples(self.delay, 0);
  }
  ~Experiment() {
    g_test_self = nullptr;
    g_test_engine.end_experiment();
  }
};

// A mutex of one kind: `type` (pthread_mutexattr_settype), robust or not.
struct Mutex {
  pthread_mutex_t m;
  explicit Mutex(int type, bool robust = false) {
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, type);
    if (robust) pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&m, &a);
    pthread_mutexattr_destroy(&a);
  }
  ~Mutex() { pthread_mutex_destroy(&m); }
};

TEST(InterposeSync, AnErrorCheckingMutexLockedTwiceSaysDeadlock) {
  Experiment e;
  Mutex m(PTHREAD_MUTEX_ERRORCHECK);
  EXPECT_EQ(pthread_mutex_lock(&m.m), 0);
  // trylock says EBUSY here; the wrapper must go on to lock's answer.
  EXPECT_EQ(pthread_mutex_lock(&m.m), EDEADLK);
  EXPECT_EQ(pthread_mutex_unlock(&m.m), 0);
}

TEST(InterposeSync, ARecursiveMutexCountsItsLocks) {
  Experiment e;
  Mutex m(PTHREAD_MUTEX_RECURSIVE);
  EXPECT_EQ(pthread_mutex_lock(&m.m), 0);
  EXPECT_EQ(pthread_mutex_lock(&m.m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m.m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m.m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m.m), EPERM);  // no longer ours
}

TEST(InterposeSync, ARobustMutexWhoseOwnerDiedSaysSo) {
  Experiment e;
  Mutex m(PTHREAD_MUTEX_DEFAULT, /*robust=*/true);
  std::thread([&] { pthread_mutex_lock(&m.m); }).join();  // exits holding it
  // A free-looking lock whose trylock returns EOWNERDEAD: the lock is ours,
  // and the caller must be told so.
  EXPECT_EQ(pthread_mutex_lock(&m.m), EOWNERDEAD);
  EXPECT_EQ(pthread_mutex_consistent(&m.m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m.m), 0);
}

// A thread with a debt takes a free lock: it pays first, holding nothing.
TEST(InterposeSync, AFreeLockIsTakenAfterPayingTheDebt) {
  Experiment e;
  DelayAccount hitter;
  g_test_engine.on_samples(hitter, kDelay / 1000000);  // we owe 3 ms
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  EXPECT_EQ(e.self.delay.paid, kDelay);
  EXPECT_EQ(g_test_engine.global() - e.self.delay.local, 0u);
  pthread_mutex_unlock(&m);
}

TEST(InterposeSync, ARwlockHeldForWritingSaysDeadlockToItsOwner) {
  Experiment e;
  pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
  EXPECT_EQ(pthread_rwlock_wrlock(&l), 0);
  EXPECT_EQ(pthread_rwlock_wrlock(&l), EDEADLK);
  EXPECT_EQ(pthread_rwlock_rdlock(&l), EDEADLK);
  EXPECT_EQ(pthread_rwlock_unlock(&l), 0);
  EXPECT_EQ(pthread_rwlock_rdlock(&l), 0);  // readers share it
  EXPECT_EQ(pthread_rwlock_rdlock(&l), 0);
  EXPECT_EQ(pthread_rwlock_unlock(&l), 0);
  EXPECT_EQ(pthread_rwlock_unlock(&l), 0);
}

// `hold` takes the lock in this thread; another thread then blocks in
// `take` (and releases with `release`); delays are inserted while it waits;
// this thread's `release` wakes it. Inherited: the releaser paid first, the
// woken thread is credited and pays nothing.
void expect_inherited(const std::function<void()>& hold,
                      const std::function<void()>& take,
                      const std::function<void()>& release) {
  Experiment e;
  hold();
  ThreadState waiter;
  std::thread t = start_blocked(&waiter, [&] {
    take();
    release();
  });
  DelayAccount hitter;
  g_test_engine.on_samples(hitter, kDelay / 1000000);  // hits while it waits
  release();
  EXPECT_EQ(e.self.delay.paid, kDelay) << "the releaser did not pay first";
  t.join();
  EXPECT_EQ(waiter.delay.paid, 0u) << "the waiter paid its waker's delays";
  EXPECT_EQ(g_test_engine.global() - waiter.delay.local, 0u)
      << "the waiter was not credited";
}

TEST(InterposeSync, ABlockedLockerInheritsItsWakersPayment) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  expect_inherited([&] { ASSERT_EQ(pthread_mutex_lock(&m), 0); },
                   [&] { pthread_mutex_lock(&m); },
                   [&] { pthread_mutex_unlock(&m); });
}

// A writer blocked on a reader is woken by the reader's unlock.
TEST(InterposeSync, ABlockedWriterInheritsItsWakersPayment) {
  pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
  expect_inherited([&] { ASSERT_EQ(pthread_rwlock_rdlock(&l), 0); },
                   [&] { pthread_rwlock_wrlock(&l); },
                   [&] { pthread_rwlock_unlock(&l); });
}

}  // namespace
}  // namespace andweorc::runtime
