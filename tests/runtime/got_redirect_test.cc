// got_redirect_test.cc: GotRedirect on a real library's GOT: bound slots
// (with RELRO) and lazy ones are pointed at a replacement and back, the
// pages ld.so made read-only stay read-only, slots bound to another
// definition and this program's own calls are left alone, and a library
// loaded later is noticed.
#include "runtime/got_redirect.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <pthread.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <sstream>

namespace andweorc::runtime {
namespace {

using LockFn = int (*)(pthread_mutex_t*);

pthread_mutex_t g_mine = PTHREAD_MUTEX_INITIALIZER;
std::atomic<int> g_calls{0};
LockFn g_real_lock, g_real_trylock;

// The replacements count calls on the test's mutex only: libraries of the
// test process (libstdc++) are rerouted too while a redirect is applied.
int counting_lock(pthread_mutex_t* m) {
  if (m == &g_mine) ++g_calls;
  return g_real_lock(m);
}
int counting_trylock(pthread_mutex_t* m) { return g_real_trylock(m); }
int unrelated_lock(pthread_mutex_t*) { return 0; }

struct Lib {
  void* handle = nullptr;
  int (*lock)(pthread_mutex_t*) = nullptr;
  void* (*trylock_address)() = nullptr;
};

Lib open_lib(const char* path, int mode) {
  Lib lib;
  lib.handle = dlopen(path, mode);
  if (lib.handle == nullptr) return lib;
  lib.lock = reinterpret_cast<int (*)(pthread_mutex_t*)>(
      dlsym(lib.handle, "got_target_lock"));
  lib.trylock_address = reinterpret_cast<void* (*)()>(
      dlsym(lib.handle, "got_target_trylock_address"));
  return lib;
}

// The library's RELRO pages as ld.so protected them: not writable.
bool relro_is_read_only(const char* path) {
  struct Found {
    const char* path;
    uintptr_t start = 0, end = 0;
  } found{path};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* f = static_cast<Found*>(data);
        if (info->dlpi_name == nullptr || strcmp(info->dlpi_name, f->path) != 0)
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            f->start = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr) & ~4095ul;
            f->end = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
                      info->dlpi_phdr[i].p_memsz) &
                     ~4095ul;
          }
        return 1;
      },
      &found);
  if (found.end <= found.start) return false;
  std::ifstream maps("/proc/self/maps");
  bool covered = false;
  for (std::string line; std::getline(maps, line);) {
    std::istringstream in(line);
    std::string range, perms;
    in >> range >> perms;
    uintptr_t start = std::stoul(range.substr(0, range.find('-')), nullptr, 16);
    uintptr_t end = std::stoul(range.substr(range.find('-') + 1), nullptr, 16);
    if (end <= found.start || start >= found.end) continue;
    if (perms[1] == 'w') return false;
    covered = true;
  }
  return covered;
}

class GotRedirectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_real_lock =
        reinterpret_cast<LockFn>(dlsym(RTLD_DEFAULT, "pthread_mutex_lock"));
    g_real_trylock =
        reinterpret_cast<LockFn>(dlsym(RTLD_DEFAULT, "pthread_mutex_trylock"));
    ASSERT_NE(g_real_lock, nullptr);
    g_calls = 0;
  }
  static GotRedirect counting() {
    return GotRedirect(
        {{"pthread_mutex_lock", reinterpret_cast<void*>(g_real_lock),
          reinterpret_cast<void*>(&counting_lock)},
         {"pthread_mutex_trylock", reinterpret_cast<void*>(g_real_trylock),
          reinterpret_cast<void*>(&counting_trylock)}},
        &g_calls);
  }
};

TEST_F(GotRedirectTest, BoundSlotsGoToTheReplacementAndBackWithRelroKept) {
  Lib lib = open_lib(GOT_TARGET_NOW, RTLD_NOW);
  ASSERT_NE(lib.lock, nullptr) << dlerror();
  ASSERT_EQ(lib.lock(&g_mine), 0);
  EXPECT_EQ(g_calls, 0);
  ASSERT_TRUE(relro_is_read_only(GOT_TARGET_NOW));

  GotRedirect redirect = counting();
  redirect.prepare();
  for (int round = 0; round < 2; ++round) {  // a second attach works too
    GotCounts applied = redirect.apply();
    EXPECT_GE(applied.written, 2) << "the call and the taken address";
    EXPECT_EQ(applied.unsettled, 0);
    EXPECT_EQ(lib.lock(&g_mine), 0);
    EXPECT_EQ(g_calls, round + 1);
    EXPECT_EQ(lib.trylock_address(),
              reinterpret_cast<void*>(&counting_trylock));
    EXPECT_TRUE(relro_is_read_only(GOT_TARGET_NOW));
    // This program's own calls are never rerouted (it holds the code).
    pthread_mutex_lock(&g_mine);
    pthread_mutex_unlock(&g_mine);
    EXPECT_EQ(g_calls, round + 1);
    // Applying again writes nothing new.
    EXPECT_EQ(redirect.apply().written, 0);

    GotCounts restored = redirect.restore();
    EXPECT_GE(restored.written, 2);
    EXPECT_EQ(lib.lock(&g_mine), 0);
    EXPECT_EQ(g_calls, round + 1) << "still rerouted after restore";
    EXPECT_EQ(lib.trylock_address(), reinterpret_cast<void*>(g_real_trylock));
    EXPECT_TRUE(relro_is_read_only(GOT_TARGET_NOW));
  }
  dlclose(lib.handle);
}

TEST_F(GotRedirectTest, LazySlotsAreTakenBeforeTheirFirstCall) {
  Lib lib = open_lib(GOT_TARGET_LAZY, RTLD_LAZY);
  ASSERT_NE(lib.lock, nullptr) << dlerror();
  GotRedirect redirect = counting();
  redirect.prepare();
  GotCounts applied = redirect.apply();
  EXPECT_GE(applied.written, 1);
  // The first call ever goes to the replacement, not through ld.so.
  EXPECT_EQ(lib.lock(&g_mine), 0);
  EXPECT_EQ(g_calls, 1);
  redirect.restore();
  // Restored to libc's function itself (bound now instead of lazily).
  EXPECT_EQ(lib.lock(&g_mine), 0);
  EXPECT_EQ(g_calls, 1);
  dlclose(lib.handle);
}

TEST_F(GotRedirectTest, SlotsBoundToAnotherDefinitionAreLeftAlone) {
  Lib lib = open_lib(GOT_TARGET_NOW, RTLD_NOW);
  ASSERT_NE(lib.lock, nullptr) << dlerror();
  // The slot is bound to libc's pthread_mutex_lock, not to this `real`.
  GotRedirect redirect(
      {{"pthread_mutex_lock", reinterpret_cast<void*>(&unrelated_lock),
        reinterpret_cast<void*>(&counting_lock)}},
      &g_calls);
  redirect.prepare();
  GotCounts applied = redirect.apply();
  EXPECT_EQ(applied.written, 0);
  EXPECT_GE(applied.elsewhere, 1);
  EXPECT_EQ(lib.lock(&g_mine), 0);
  EXPECT_EQ(g_calls, 0);
  dlclose(lib.handle);
}

TEST_F(GotRedirectTest, ALibraryLoadedLaterIsNoticedAndRerouted) {
  GotRedirect redirect = counting();
  redirect.prepare();
  redirect.apply();
  EXPECT_FALSE(redirect.objects_changed());
  Lib lib = open_lib(GOT_TARGET_NOW, RTLD_NOW);
  ASSERT_NE(lib.lock, nullptr) << dlerror();
  EXPECT_TRUE(redirect.objects_changed());
  EXPECT_EQ(lib.lock(&g_mine), 0);
  EXPECT_EQ(g_calls, 0) << "rerouted before anyone asked";
  EXPECT_GE(redirect.apply().written, 1);
  EXPECT_FALSE(redirect.objects_changed());
  EXPECT_EQ(lib.lock(&g_mine), 0);
  EXPECT_EQ(g_calls, 1);
  redirect.restore();
  dlclose(lib.handle);
}

}  // namespace
}  // namespace andweorc::runtime
