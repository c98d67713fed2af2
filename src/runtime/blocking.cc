// blocking.cc: the delay-inheritance hooks (blocking.h) and the public API
// for custom synchronization and hand-offs (andweorc.h, Coz's ABI).
#include "runtime/blocking.h"

#include <stdint.h>

#include "runtime/runtime.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

// The account of a thread that may have to pay or be credited, or nullptr.
// Outside experiments no delay can be owed or inserted (a new epoch resets
// accounts anyway), so the wrappers around every lock, wait and I/O call
// stop at this one load of a read-mostly global. Not at 0% experiments:
// they must cost what the s% ones cost (DelayEngine::start_experiment).
ANDWEORC_SIGNAL_SAFE inline DelayAccount* account() {
  if (__builtin_expect(!delay_engine().running(), 1)) return nullptr;
  ThreadState* s = current_thread();
  return s != nullptr ? &s->delay : nullptr;
}

// account(), for the checks before every lock, unlock and write: nullptr
// first when nothing is owed, nearly always during experiments, decided
// from the thread's account and the shared state's first line alone,
// without the engine object (DelayEngine::settled). One TLS read either way.
ANDWEORC_SIGNAL_SAFE inline DelayAccount* unsettled_account() {
  ThreadState* s = current_thread();
  if (s == nullptr || DelayEngine::settled(s->delay)) return nullptr;
  return delay_engine().running() ? &s->delay : nullptr;
}

}  // namespace
}  // namespace andweorc::runtime

using andweorc::runtime::account;
using andweorc::runtime::delay_engine;
using andweorc::runtime::unsettled_account;

extern "C" {

ANDWEORC_RT_HOT void andweorc_rt_pre_block_slow(void) {
  if (auto* a = account()) delay_engine().pre_block(*a);
}

ANDWEORC_RT_HOT void andweorc_rt_post_block_slow(int woken_by_thread) {
  if (auto* a = account()) delay_engine().post_block(*a, woken_by_thread != 0);
}

ANDWEORC_RT_HOT void andweorc_rt_catch_up_slow(void) {
  if (auto* a = unsettled_account()) delay_engine().catch_up(*a);
}

ANDWEORC_RT_HOT void andweorc_rt_catch_up_unless_slow(int (*skip)(int fd),
                                                      int fd) {
  auto* a = unsettled_account();
  if (a == nullptr) return;
  if (delay_engine().owes(*a) && skip(fd)) return;
  delay_engine().catch_up(*a);
}

// ---- Public API (andweorc.h) ----
__attribute__((visibility("default"))) void andweorc_pre_block(void) {
  andweorc_rt_pre_block();
}
__attribute__((visibility("default"))) void andweorc_post_block(
    int woken_by_thread) {
  andweorc_rt_post_block(woken_by_thread);
}
__attribute__((visibility("default"))) void andweorc_catch_up(void) {
  andweorc_rt_catch_up();
}
// A task carries the delay count of the thread that made it; the thread that
// runs it adopts that count (the Go port's lesson: delays follow the work).
__attribute__((visibility("default"))) uint64_t andweorc_handoff_token(void) {
  andweorc::runtime::ThreadState* s = andweorc::runtime::current_thread();
  auto* a = s != nullptr ? &s->delay : nullptr;
  return a != nullptr ? delay_engine().token(*a) : 0;
}
__attribute__((visibility("default"))) void andweorc_handoff_adopt(
    uint64_t token) {
  if (auto* a = account()) delay_engine().adopt(*a, token);
}

// ---- Coz's ABI ----
__attribute__((visibility("default"))) void _coz_pre_block(void) {
  andweorc_rt_pre_block();
}
__attribute__((visibility("default"))) void _coz_post_block(int skip_delays) {
  andweorc_rt_post_block(skip_delays);
}
__attribute__((visibility("default"))) void _coz_add_delays(void) {
  andweorc_rt_catch_up();
}

}  // extern "C"
