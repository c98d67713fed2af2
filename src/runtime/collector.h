// collector.h: the background thread that empties sample rings to disk.
//
// It wakes every 20 ms, drains every thread's ring into the raw file and,
// twice a second, writes a progress-point snapshot, so a crash loses at most
// the last few milliseconds. It is created with the real pthread_create and
// all signals blocked: it is never sampled and never takes the program's
// signals.
#ifndef ANDWEORC_RUNTIME_COLLECTOR_H_
#define ANDWEORC_RUNTIME_COLLECTOR_H_

namespace andweorc::runtime {

void collector_start();
// Asks the thread to stop and waits for it; safe to call more than once.
void collector_stop();
// After fork: the thread does not exist in the child; start a new one.
void collector_after_fork_child();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_COLLECTOR_H_
