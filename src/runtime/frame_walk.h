// frame_walk.h: the frame-pointer walk the timer fallback uses.
#ifndef ANDWEORC_RUNTIME_FRAME_WALK_H_
#define ANDWEORC_RUNTIME_FRAME_WALK_H_

#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// Walks saved frame pointers from `fp`, staying inside [lo, hi). Writes
// return addresses to out (max `cap`), returns how many.
ANDWEORC_SIGNAL_SAFE int walk_frame_pointers(uintptr_t fp, uintptr_t lo,
                                             uintptr_t hi, uint64_t* out,
                                             int cap);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_FRAME_WALK_H_
