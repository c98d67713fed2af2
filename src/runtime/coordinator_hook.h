// coordinator_hook.h: how the runtime starts and stops the experiment
// coordinator. The coordinator (src/coordinator) lives in the same library
// but is ordinary code: it parses DWARF and allocates, so it runs in its own
// thread and never in a handler. The runtime never names it: the
// coordinator installs these hooks, so data and calls flow one way
// (coordinator -> runtime), and a library built without a coordinator
// simply runs no experiments.
#ifndef ANDWEORC_RUNTIME_COORDINATOR_HOOK_H_
#define ANDWEORC_RUNTIME_COORDINATOR_HOOK_H_

namespace andweorc::runtime {

struct CoordinatorHooks {
  // Starts the coordinator thread if experiments are enabled in the
  // environment. Called once the runtime is active.
  void (*start)() = nullptr;
  // Ends the running experiment (unrecorded) and stops the thread.
  void (*stop)() = nullptr;
  // Attach's detach: as stop, then waits until the thread has exited (a
  // catalog still being built is waited for) and readies a later start.
  void (*detach)() = nullptr;
};

// Installs the hooks. Must run before the runtime's constructor: the
// coordinator calls it from a constructor of priority 101, and prioritized
// constructors of one library all run before its unprioritized ones (the
// runtime's). Not thread-safe; nothing else runs that early.
void install_coordinator_hooks(const CoordinatorHooks& hooks);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_COORDINATOR_HOOK_H_
