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
#include <chrono>
#include <fstream>
#include <string>
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

// 'S' once the thread sleeps in the kernel.
char thread_state(int tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2]
                                                               : '?';
}

TEST(InterposeSync, AnErrorCheckingMutexLockedTwiceSaysDeadlock) {
  Experiment e;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_t m;
  pthread_mutex_init(&m, &a);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  // trylock says EBUSY here; the wrapper must go on to lock's answer.
  EXPECT_EQ(pthread_mutex_lock(&m), EDEADLK);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  pthread_mutex_destroy(&m);
  pthread_mutexattr_destroy(&a);
}

TEST(InterposeSync, ARecursiveMutexCountsItsLocks) {
  Experiment e;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_t m;
  pthread_mutex_init(&m, &a);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  EXPECT_EQ(pthread_mutex_lock(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), EPERM);  // no longer ours
  pthread_mutex_destroy(&m);
  pthread_mutexattr_destroy(&a);
}

TEST(InterposeSync, ARobustMutexWhoseOwnerDiedSaysSo) {
  Experiment e;
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_t m;
  pthread_mutex_init(&m, &a);
  std::thread([&] { pthread_mutex_lock(&m); }).join();  // exits holding it
  // A free-looking lock whose trylock returns EOWNERDEAD: the lock is ours,
  // and the caller must be told so.
  EXPECT_EQ(pthread_mutex_lock(&m), EOWNERDEAD);
  EXPECT_EQ(pthread_mutex_consistent(&m), 0);
  EXPECT_EQ(pthread_mutex_unlock(&m), 0);
  pthread_mutex_destroy(&m);
  pthread_mutexattr_destroy(&a);
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

// A thread blocked on a held lock is woken by the unlock of a thread that
// paid the delays inserted meanwhile: it is credited and pays nothing.
TEST(InterposeSync, ABlockedLockerInheritsItsWakersPayment) {
  Experiment e;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  ASSERT_EQ(pthread_mutex_lock(&m), 0);
  ThreadState waiter;
  std::atomic<int> tid{0};
  std::thread t([&] {
    g_test_self = &waiter;
    g_test_engine.on_samples(waiter.delay, 0);
    tid = int(gettid());
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    g_test_self = nullptr;
  });
  while (tid.load() == 0) std::this_thread::yield();
  while (thread_state(tid.load()) != 'S')
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  DelayAccount hitter;
  g_test_engine.on_samples(hitter, kDelay / 1000000);  // hits while it waits
  pthread_mutex_unlock(&m);
  EXPECT_EQ(e.self.delay.paid, kDelay) << "the unlocker did not pay first";
  t.join();
  EXPECT_EQ(waiter.delay.paid, 0u) << "the waiter paid its waker's delays";
  EXPECT_EQ(g_test_engine.global() - waiter.delay.local, 0u)
      << "the waiter was not credited";
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

// A writer blocked on readers is woken by the last reader's unlock, which
// pays first (unlock: catch_up), and is credited.
TEST(InterposeSync, ABlockedWriterInheritsItsWakersPayment) {
  Experiment e;
  pthread_rwlock_t l = PTHREAD_RWLOCK_INITIALIZER;
  ASSERT_EQ(pthread_rwlock_rdlock(&l), 0);
  ThreadState writer;
  std::atomic<int> tid{0};
  std::thread t([&] {
    g_test_self = &writer;
    g_test_engine.on_samples(writer.delay, 0);
    tid = int(gettid());
    pthread_rwlock_wrlock(&l);
    pthread_rwlock_unlock(&l);
    g_test_self = nullptr;
  });
  while (tid.load() == 0) std::this_thread::yield();
  while (thread_state(tid.load()) != 'S')
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  DelayAccount hitter;
  g_test_engine.on_samples(hitter, kDelay / 1000000);
  pthread_rwlock_unlock(&l);
  EXPECT_EQ(e.self.delay.paid, kDelay) << "the reader did not pay first";
  t.join();
  EXPECT_EQ(writer.delay.paid, 0u) << "the writer paid its waker's delays";
  EXPECT_EQ(g_test_engine.global() - writer.delay.local, 0u)
      << "the writer was not credited";
}

}  // namespace
}  // namespace andweorc::runtime
