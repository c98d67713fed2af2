// sample_hook.h: what the samplers do with each sample besides storing it:
// attribute it to an in-scope line (for choosing experiment lines) and count
// whether it hit the code the current experiment speeds up.
#ifndef ANDWEORC_RUNTIME_SAMPLE_HOOK_H_
#define ANDWEORC_RUNTIME_SAMPLE_HOOK_H_

#include <stdint.h>

#include "runtime/signal_safe.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {

// Called by the owning thread's handler once per sample; adds `weight` to
// s->pending_hits when the sample hit the selection.
ANDWEORC_SIGNAL_SAFE void on_sample_taken(ThreadState* s,
                                          const uint64_t* frames, int n,
                                          uint32_t weight);

// Called by the handler after all samples of this signal: inserts the delays
// those hits imply and pays this thread's debt.
ANDWEORC_SIGNAL_SAFE void after_samples(ThreadState* s);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_SAMPLE_HOOK_H_
