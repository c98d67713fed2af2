// raw_writer.h: appends raw_format.h records to this process's raw file.
//
// Every function that writes requires io_lock to be held by the caller, so
// records never interleave. Writes use write(2) only and are signal-safe.
#ifndef ANDWEORC_RUNTIME_RAW_WRITER_H_
#define ANDWEORC_RUNTIME_RAW_WRITER_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// Creates <data_dir>/raw-<pid>-<seq>.awr (a file without a name in $TMPDIR,
// or in memory, when data_dir is "") and writes the file and process headers.
// Not signal-safe (called at start-up, after fork, after exec fails).
bool raw_open(const char* data_dir, uint32_t sampler, uint64_t period_ns);
void raw_close();
ANDWEORC_SIGNAL_SAFE bool raw_is_open();
// The open file (the Runner reads it back under io_lock), or -1.
int raw_fd();

ANDWEORC_SIGNAL_SAFE void raw_write(uint32_t type, const void* a, size_t alen,
                                    const void* b = nullptr, size_t blen = 0);
ANDWEORC_SIGNAL_SAFE void raw_write_note(const char* text);
// Copies /proc/self/maps into a kMaps record.
ANDWEORC_SIGNAL_SAFE void raw_write_maps();
// Moves all complete samples out of every thread's ring into the file.
ANDWEORC_SIGNAL_SAFE void raw_drain_all_rings();
// The same for one thread's ring (a thread that is exiting).
ANDWEORC_SIGNAL_SAFE void raw_drain_ring(struct ThreadState* s);

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_RAW_WRITER_H_
