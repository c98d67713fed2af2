// progress_points_stubs.cc: the few runtime functions progress_points.cc
// calls, for testing it alone: a fixed pool of thread slots the test drives
// by hand, and no raw file.
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/thread_state.h"

namespace andweorc::runtime {

ThreadState g_test_slots[8];

ThreadState* current_thread() { return nullptr; }
ThreadState* register_current_thread() { return nullptr; }
ThreadState* thread_slot(int index) { return &g_test_slots[index]; }
int thread_slot_count() { return 8; }
void raw_write(uint32_t, const void*, size_t, const void*, size_t) {}
void note_unprofiled_thread() {}
uint64_t probe_hits(int) { return 0; }  // no --progress probes here
void probes_thread_exited() {}

}  // namespace andweorc::runtime
