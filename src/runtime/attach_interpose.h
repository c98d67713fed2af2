// attach_interpose.h: the wrappers `run` gets by preloading, put in place
// after the fact when `andweorc attach` loaded the runtime into a running
// process (got_redirect.h), and taken out again at the detach.
//
// At the attach: every loaded object's calls to the interposed functions
// (locks, condition variables, semaphores, sleeps, reads and writes, polls,
// descriptors, signal masks and handlers, thread creation and exit, exec)
// are pointed at the runtime's wrappers, and the descriptors the program
// already has are classified as the wrappers would have when they were
// made (pipes and eventfds with both ends here, Unix sockets whose peer is
// this process, epoll sets and what they watch). Objects the program loads
// while attached are patched by the collector's next pass (0.5 s). At the
// detach every rewritten slot is pointed back at libc, before the
// experiments end, so nothing of the runtime stays in the program's calls.
//
// Left out on purpose: fork-like calls (posix_spawn, popen, system,
// daemon): an attached process's children are not followed.
#ifndef ANDWEORC_RUNTIME_ATTACH_INTERPOSE_H_
#define ANDWEORC_RUNTIME_ATTACH_INTERPOSE_H_

namespace andweorc::runtime {

// From runtime_attach_start, once the runtime runs. Writes a note saying
// how many calls were rerouted in how many objects (or why none were).
void attach_interpose_start();
// From the collector while attached: patches objects loaded since.
void attach_interpose_sweep();
// From runtime_attach_stop: every rewritten slot back to libc.
void attach_interpose_stop();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_ATTACH_INTERPOSE_H_
