// interpose_stubs.h: what interpose_io_test drives in interpose_stubs.cc.
#ifndef ANDWEORC_TESTS_RUNTIME_INTERPOSE_STUBS_H_
#define ANDWEORC_TESTS_RUNTIME_INTERPOSE_STUBS_H_

#include <atomic>
#include <functional>
#include <thread>

#include "runtime/delay_engine.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {

// The calling thread's state as current_thread() reports it.
extern thread_local ThreadState* g_test_self;
// The engine delay_engine() returns (instant sleeps, a frozen clock).
extern DelayEngine g_test_engine;

// Waits until `tid` is set and that thread sleeps in the kernel ('S' in
// /proc/self/task/TID/stat): blocked in the call under test.
void wait_until_blocked(const std::atomic<int>& tid);

// Starts a thread that runs `body` as `self` (its account synced to the
// running experiment) and returns once that thread sleeps in the kernel.
std::thread start_blocked(ThreadState* self, std::function<void()> body);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_TESTS_RUNTIME_INTERPOSE_STUBS_H_
