// interpose_stubs.cc: the runtime functions the interposed wrappers call,
// for testing the wrappers alone (interpose_io_test, interpose_sync_test): one
// delay engine the test drives, a per-thread state the test assigns, no
// sampler, no file.
#include "interpose_stubs.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "runtime/runtime.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {

thread_local ThreadState* g_test_self = nullptr;
// "Sleeps" exactly as asked, at once; the account's `paid` records it.
uint64_t instant_sleep(void*, uint64_t ns) { return ns; }
uint64_t frozen_clock() { return 0; }
constinit DelayEngine g_test_engine{Sleeper{instant_sleep, nullptr},
                                    frozen_clock};
const int g_test_pid = int(getpid());

DelayEngine& delay_engine() { return g_test_engine; }
ThreadState* current_thread() { return g_test_self; }
bool is_original_process() { return int(getpid()) == g_test_pid; }
void runtime_before_exec() {}
// Not under `andweorc run`: exec_check.cc notes nothing.
bool runtime_started_by_tool() { return false; }
const char* runtime_library_name() { return ""; }
void runtime_write_note_bounded(const char*) {}
void runtime_before_dlclose() {}
void runtime_shutdown_now() {}

namespace {
char thread_state(int tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2]
                                                               : '?';
}
}  // namespace

void wait_until_blocked(const std::atomic<int>& tid) {
  while (tid.load() == 0) std::this_thread::yield();
  while (thread_state(tid.load()) != 'S')
    std::this_thread::sleep_for(std::chrono::microseconds(200));
}

std::thread start_blocked(ThreadState* self, std::function<void()> body) {
  // The thread writes `tid` before `body` and never after, so it may live
  // on this frame.
  std::atomic<int> tid{0};
  std::thread t([self, &tid, body = std::move(body)] {
    g_test_self = self;
    g_test_engine.on_samples(self->delay, 0);
    tid = int(gettid());
    body();
    g_test_self = nullptr;
  });
  wait_until_blocked(tid);
  return t;
}

}  // namespace andweorc::runtime

extern "C" {
int andweorc_guard_signal_syscall(long, long, long, long, long, long*) {
  return 0;
}
int andweorc_is_original_process(void) {
  return andweorc::runtime::is_original_process() ? 1 : 0;
}
int andweorc_io_lock_bounded(void) { return 1; }
void andweorc_io_unlock(void) {}
}
