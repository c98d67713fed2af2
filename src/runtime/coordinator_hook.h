// coordinator_hook.h: how the runtime starts and stops the experiment
// coordinator (src/coordinator), which lives in the same library but is
// ordinary code: it parses DWARF and allocates, so it runs in its own thread
// and never in a handler.
#ifndef ANDWEORC_RUNTIME_COORDINATOR_HOOK_H_
#define ANDWEORC_RUNTIME_COORDINATOR_HOOK_H_

namespace andweorc::runtime {

// Starts the coordinator thread if experiments are enabled in the
// environment. Called once the runtime is active.
void coordinator_start();
// Ends the running experiment (unrecorded) and stops the thread.
void coordinator_stop();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_COORDINATOR_HOOK_H_
