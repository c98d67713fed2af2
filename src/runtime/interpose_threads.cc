// interpose_threads.cc: pthread_create, so every new thread is sampled from
// its first instruction of user code.
//
// Threads are registered inside the new thread (perf events and timers must
// be owned by it); they unregister from a pthread key destructor, which runs
// for both return and pthread_exit (thread_state.cc).
#include <pthread.h>
#include <stdlib.h>

#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {
namespace {

struct StartArgs {
  void* (*routine)(void*);
  void* arg;
  DelayAccount creator;  // the new thread starts with its creator's count
  bool has_creator;
};

void* thread_entry(void* p) {
  StartArgs args = *static_cast<StartArgs*>(p);
  free(p);
  ThreadState* s = register_current_thread();
  if (s == nullptr) note_unprofiled_thread();  // the pool is full
  if (s != nullptr && args.has_creator)
    delay_engine().inherit(s->delay, args.creator);
  void* result = args.routine(args.arg);
  // Returning wakes a joiner: pay what this thread owes first.
  if (s != nullptr) delay_engine().catch_up(s->delay);
  return result;
}

}  // namespace
}  // namespace andweorc::runtime

extern "C" __attribute__((visibility("default"))) int pthread_create(
    pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*),
    void* arg) {
  using namespace andweorc::runtime;
  const RealFunctions& r = real();
  if (!runtime_active()) return r.pthread_create(thread, attr, routine, arg);
  // aligned_alloc: DelayAccount is cache-line aligned.
  auto* args = static_cast<StartArgs*>(
      aligned_alloc(alignof(StartArgs), sizeof(StartArgs)));
  if (args == nullptr) return r.pthread_create(thread, attr, routine, arg);
  ThreadState* self = current_thread();
  *args = StartArgs{routine, arg, {}, self != nullptr};
  if (self != nullptr) args->creator = self->delay;
  int rc = r.pthread_create(thread, attr, thread_entry, args);
  if (rc != 0) free(args);
  return rc;
}
