// interpose_stubs.h: what interpose_io_test drives in interpose_stubs.cc.
#ifndef ANDWEORC_TESTS_RUNTIME_INTERPOSE_STUBS_H_
#define ANDWEORC_TESTS_RUNTIME_INTERPOSE_STUBS_H_

#include "runtime/delay_engine.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {

// The calling thread's state as current_thread() reports it.
extern thread_local ThreadState* g_test_self;
// The engine delay_engine() returns (instant sleeps, a frozen clock).
extern DelayEngine g_test_engine;

}  // namespace andweorc::runtime

#endif  // ANDWEORC_TESTS_RUNTIME_INTERPOSE_STUBS_H_
