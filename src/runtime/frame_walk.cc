// frame_walk.cc: see frame_walk.h.
#include "runtime/frame_walk.h"

namespace andweorc::runtime {

ANDWEORC_SIGNAL_SAFE int walk_frame_pointers(uintptr_t fp, uintptr_t lo,
                                             uintptr_t hi, uint64_t* out,
                                             int cap) {
  int n = 0;
  // Each frame: [fp] = caller's fp, [fp+8] = return address. Frames grow
  // towards higher addresses as we walk out; anything else means code
  // without frame pointers, so we stop rather than read garbage.
  while (n < cap && fp >= lo && fp + 16 <= hi && (fp & 7) == 0) {
    const uintptr_t* frame = reinterpret_cast<const uintptr_t*>(fp);
    uintptr_t ret = frame[1];
    uintptr_t next = frame[0];
    if (ret == 0) break;
    out[n++] = ret;
    if (next <= fp) break;
    fp = next;
  }
  return n;
}

}  // namespace andweorc::runtime
