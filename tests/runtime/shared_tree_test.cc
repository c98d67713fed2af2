// The process tree's shared experiment state (shared_tree.h, delay_engine.h
// ExperimentShared): two engines on one ExperimentShared stand for two
// processes (deterministic, injected sleeper and clock); then a real fork
// shows that a child's hits reach the parent through the segment.
#include "runtime/shared_tree.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/delay_engine.h"

namespace andweorc::runtime {
namespace {

struct FakeSleeper {
  std::vector<uint64_t> asked;
  static uint64_t sleep(void* ctx, uint64_t ns) {
    static_cast<FakeSleeper*>(ctx)->asked.push_back(ns);
    return ns;
  }
  Sleeper sleeper() { return Sleeper{&FakeSleeper::sleep, this}; }
};

constexpr uint64_t kPeriod = 1000000;
uint64_t g_now = 0;
uint64_t fake_clock() { return g_now; }

// The root process (coordinator) and a fork child: each its own engine
// object (as after fork), both on one shared state.
class TwoProcesses : public ::testing::Test {
 protected:
  ExperimentShared shared;
  FakeSleeper root_sleeps, child_sleeps;
  DelayEngine root{root_sleeps.sleeper(), fake_clock};
  DelayEngine child{child_sleeps.sleeper(), fake_clock};
  DelayAccount root_thread, child_thread, child_other;
  void SetUp() override {
    g_now = 1000;
    root.attach_shared(&shared);
    child.attach_shared(&shared);
  }
};

TEST_F(TwoProcesses, ChildHitsDelayTheRootAndItsOtherThreads) {
  root.start_experiment(kPeriod / 2);  // 50%
  child.on_samples(child_thread, 4);   // the child ran the selected line
  EXPECT_EQ(root.global(), 2 * kPeriod);
  EXPECT_EQ(root.hits(), 4u);  // the coordinator counts the child's hits
  EXPECT_TRUE(child_sleeps.asked.empty());  // the hitter is not delayed
  root.on_samples(root_thread, 0);
  ASSERT_EQ(root_sleeps.asked.size(), 1u);
  EXPECT_EQ(root_sleeps.asked[0], 2 * kPeriod);
  child.on_samples(child_other, 0);  // another thread of the child pays too
  ASSERT_EQ(child_sleeps.asked.size(), 1u);
  EXPECT_EQ(child_sleeps.asked[0], 2 * kPeriod);
}

TEST_F(TwoProcesses, RootHitsDelayTheChild) {
  root.start_experiment(kPeriod);
  root.on_samples(root_thread, 1);
  child.on_samples(child_thread, 0);
  ASSERT_EQ(child_sleeps.asked.size(), 1u);
  EXPECT_EQ(child_sleeps.asked[0], kPeriod);
}

TEST_F(TwoProcesses, AWakeFromTheOtherProcessIsCredited) {
  // A pipeline: the child blocks reading a pipe; the root's thread inserts
  // delays, pays its own debt and writes. The child is credited.
  root.start_experiment(kPeriod);
  child.on_samples(child_thread, 0);
  child.pre_block(child_thread);
  child.on_samples(child_other, 3);  // 3 ms inserted meanwhile
  root.catch_up(root_thread);        // the writer pays before writing
  child.post_block(child_thread, /*woken_by_thread=*/true);
  child.catch_up(child_thread);
  ASSERT_EQ(root_sleeps.asked.size(), 1u);
  EXPECT_TRUE(child_sleeps.asked.empty());
}

TEST_F(TwoProcesses, NewExperimentResetsEveryProcessesDebt) {
  root.start_experiment(kPeriod);
  child.on_samples(child_thread, 0);  // synced to epoch 1
  root.on_samples(root_thread, 5);    // child owes 5 ms...
  root.end_experiment();
  root.start_experiment(kPeriod);  // ...but epoch 2 starts clean
  child.on_samples(child_thread, 0);
  EXPECT_TRUE(child_sleeps.asked.empty());
}

TEST_F(TwoProcesses, HitsAfterTheLeaseRunsOutAddNothing) {
  // The coordinator's process was killed mid-experiment: once its lease
  // expires the others stop delaying each other.
  root.start_experiment(kPeriod, /*expires_ns=*/5000);
  child.on_samples(child_thread, 1);
  EXPECT_EQ(root.global(), kPeriod);
  g_now = 5001;
  child.on_samples(child_thread, 3);
  EXPECT_EQ(root.global(), kPeriod);
  root.renew(10000);  // a live coordinator renews its lease
  child.on_samples(child_thread, 1);
  EXPECT_EQ(root.global(), 2 * kPeriod);
}

TEST(SharedAttach, CarriesTheRunningExperimentOver) {
  FakeSleeper s;
  DelayEngine e{s.sleeper(), fake_clock};
  DelayAccount a;
  e.start_experiment(kPeriod);
  e.on_samples(a, 2);
  ExperimentShared shared;
  e.attach_shared(&shared);
  EXPECT_TRUE(e.is_shared());
  EXPECT_EQ(shared.global, 2 * kPeriod);
  EXPECT_EQ(shared.delay_per_hit, kPeriod);
  EXPECT_EQ(shared.active, 1u);
  e.end_experiment();
}

TEST(TreeSegment, PointsAreNamedByKindAndName) {
  TreeSegment t{};
  int a = tree_point_index(&t, 1, "requests", 8);
  int b = tree_point_index(&t, 1, "requests", 8);  // another process
  int c = tree_point_index(&t, 2, "requests", 8);  // a latency begin
  int d = tree_point_index(&t, 1, "request", 7);
  EXPECT_EQ(a, 0);
  EXPECT_EQ(b, a);
  EXPECT_NE(c, a);
  EXPECT_NE(d, a);
  EXPECT_NE(d, c);
  for (int i = 0; i < kTreePoints; ++i) {
    char name[16];
    int n = snprintf(name, sizeof name, "p%d", i);
    tree_point_index(&t, 1, name, uint32_t(n));
  }
  EXPECT_EQ(tree_point_index(&t, 3, "one too many", 12), -1);
  EXPECT_EQ(t.points_full, 1u);
}

TEST(TreeSegment, TotalsAddUpOverProcessesButTheCaller) {
  TreeSegment t{};
  t.processes[0].pid = 100;
  t.processes[0].totals[3] = 7;
  t.processes[1].pid = 101;
  t.processes[1].totals[3] = 5;
  t.processes[2].pid = 102;  // exited: its last totals still count
  t.processes[2].totals[3] = 11;
  EXPECT_EQ(tree_total_except(t, 3, 100), 16u);
  EXPECT_EQ(tree_total_except(t, 3, 999), 23u);
  EXPECT_EQ(tree_total_except(t, 4, 999), 0u);
  EXPECT_EQ(tree_total_except(t, -1, 999), 0u);
}

// A real fork: the child inherits the segment; its hits and its published
// totals reach the parent. (tree_create maps the segment once per test
// process; later tests reuse it.)
TEST(TreeSegment, AForkChildSharesTheExperimentAndItsCounts) {
  TreeSegment* t = tree_create();
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(tree(), t);
  FakeSleeper s;
  DelayEngine engine{s.sleeper(), fake_clock};
  engine.attach_shared(&t->engine);
  engine.start_experiment(kPeriod);
  uint64_t g0 = engine.global();
  int idx = tree_point_index(t, 1, "work", 4);
  ASSERT_GE(idx, 0);
  uint64_t before = tree_total_except(*t, idx, int32_t(getpid()));
  void* arena_word = tree_alloc(t, 8);
  ASSERT_NE(arena_word, nullptr);
  EXPECT_TRUE(tree_holds(t, arena_word, 8));
  EXPECT_FALSE(tree_holds(t, &s, 8));

  pid_t pid = fork();
  if (pid == 0) {
    tree_after_fork_child();
    DelayAccount child_thread;
    engine.on_samples(child_thread, 3);  // the child's engine object
    TreeProcess* mine = tree_my_process(t);
    if (mine == nullptr) _exit(2);
    mine->totals[idx] = 42;
    __atomic_store_n(static_cast<uint64_t*>(arena_word), 9, __ATOMIC_RELEASE);
    tree_served(t, 0, /*final=*/true);  // exited: not waited for
    _exit(0);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(engine.global() - g0, 3 * kPeriod);
  EXPECT_EQ(tree_total_except(*t, idx, int32_t(getpid())) - before, 42u);
  EXPECT_EQ(*static_cast<uint64_t*>(arena_word), 9u);
  engine.end_experiment();
}

// The coordinator's request for fresh totals: a live child answers each
// (its totals are then those of that moment); a process that died without
// saying so is waited for only up to the bound.
TEST(TreeSegment, RequestsForFreshTotalsAreAnswered) {
  TreeSegment* t = tree_create();
  ASSERT_NE(t, nullptr);
  int idx = tree_point_index(t, 1, "served", 6);
  ASSERT_GE(idx, 0);
  int32_t me = int32_t(getpid());
  uint32_t first = __atomic_load_n(&t->publish_request, __ATOMIC_ACQUIRE);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t pid = fork();
  if (pid == 0) {
    tree_after_fork_child();  // claims its slot, as the runtime's fork hook
    if (write(ready[1], "r", 1) != 1) _exit(3);
    for (;;) {
      uint32_t n = tree_wait_for_request(t, 5000000);
      TreeProcess* mine = tree_my_process(t);
      if (mine == nullptr) _exit(2);
      __atomic_store_n(&mine->totals[idx], uint64_t(n - first),
                       __ATOMIC_RELAXED);
      bool last = n - first >= 3;
      tree_served(t, n, last);
      if (last) _exit(0);
    }
  }
  ASSERT_GT(pid, 0);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  close(ready[1]);
  for (uint32_t k = 1; k <= 3; ++k) {
    // Generous bound: the answer takes microseconds; only a broken wake
    // would come near it.
    EXPECT_EQ(tree_request_totals(t, me, 10000000000ull), 0);
    EXPECT_EQ(tree_total_except(*t, idx, me), k);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // A slot whose process died (SIGKILL) without its final publication.
  TreeProcess* ghost = nullptr;
  for (auto& p : t->processes)
    if (p.pid == 0) {
      ghost = &p;
      break;
    }
  ASSERT_NE(ghost, nullptr);
  ghost->pid = 999999999;
  EXPECT_EQ(tree_request_totals(t, me, 1000000), 1);
  ghost->exited = 1;
}

// The executables of a shell's started programs (coordinator_state 3):
// each once, in the order they came, until the list is full (then said).
TEST(TreeImages, EachExecutableOnceInOrderUntilFull) {
  auto t = std::make_unique<TreeSegment>();
  std::memset(static_cast<void*>(t.get()), 0, sizeof *t);
  EXPECT_TRUE(tree_register_image(t.get(), "/bin/a"));
  EXPECT_TRUE(tree_register_image(t.get(), "/bin/b"));
  EXPECT_TRUE(tree_register_image(t.get(), "/bin/a"));  // a second a
  char out[kTreeImages][kTreeImagePathMax];
  ASSERT_EQ(tree_registered_images(*t, out, kTreeImages), 2);
  EXPECT_STREQ(out[0], "/bin/a");
  EXPECT_STREQ(out[1], "/bin/b");
  EXPECT_FALSE(tree_register_image(t.get(), ""));
  EXPECT_FALSE(tree_register_image(
      t.get(), std::string(kTreeImagePathMax, 'x').c_str()));
  for (int i = 2; i < kTreeImages; ++i)
    EXPECT_TRUE(
        tree_register_image(t.get(), ("/bin/p" + std::to_string(i)).c_str()));
  EXPECT_EQ(t->images_full, 0u);
  EXPECT_FALSE(tree_register_image(t.get(), "/bin/one-too-many"));
  EXPECT_EQ(t->images_full, 1u);
  EXPECT_EQ(tree_registered_images(*t, out, kTreeImages), kTreeImages);
  EXPECT_EQ(tree_registered_images(*t, out, 3), 3);
}

// Two processes register at once (a pipeline's stages start together):
// neither is lost, neither is there twice.
TEST(TreeImages, ConcurrentRegistrationsAcrossAFork) {
  void* mem = mmap(nullptr, sizeof(TreeSegment), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* t = static_cast<TreeSegment*>(mem);
  pid_t child = fork();
  if (child == 0) {
    for (int i = 0; i < 6; ++i)
      tree_register_image(t, ("/bin/c" + std::to_string(i)).c_str());
    tree_register_image(t, "/bin/shared");
    _exit(0);
  }
  for (int i = 0; i < 6; ++i)
    tree_register_image(t, ("/bin/p" + std::to_string(i)).c_str());
  tree_register_image(t, "/bin/shared");
  int status;
  waitpid(child, &status, 0);
  char out[kTreeImages][kTreeImagePathMax];
  int n = tree_registered_images(*t, out, kTreeImages);
  EXPECT_EQ(n, 13);
  int shared = 0;
  for (int i = 0; i < n; ++i) shared += std::strcmp(out[i], "/bin/shared") == 0;
  EXPECT_EQ(shared, 1);
  munmap(mem, sizeof(TreeSegment));
}

}  // namespace
}  // namespace andweorc::runtime
