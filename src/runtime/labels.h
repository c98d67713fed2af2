// labels.h: the pool of label trampolines and their binding history.
//
// A label (andweorc::Label in the public header) takes a free trampoline
// from a lock-free pool when it is made and gives it back when it is
// destroyed. Each time a trampoline is handed out, a kLabelBinding record
// (raw_format.h) says from when on it runs work of which (key, value); the
// tool resolves a sample's label from its call chain and that history. The
// hot path, apply, is just a call through the trampoline: nothing here runs
// on it.
#ifndef ANDWEORC_RUNTIME_LABELS_H_
#define ANDWEORC_RUNTIME_LABELS_H_

#include <stdint.h>

#include "runtime/label_trampolines.h"

namespace andweorc::runtime {

// Binds a free trampoline to (key, value) and records the binding. When the
// pool is empty, returns the shared overflow trampoline (index 0, bound to
// andweorc=overflow) instead: never blocks, never fails. *index receives the
// trampoline's index for label_release.
Trampoline label_acquire(const char* key, const char* value, uint32_t* index);
// Returns trampoline `index` to the pool (0 and double releases are ignored).
void label_release(uint32_t index);
// Labels that found the pool empty so far.
uint64_t label_overflows();
// In a fork child, once its raw file is open: records every binding still
// live again (the labels the child inherited keep working there). The
// text of each live binding is kept for this (one mmap per trampoline).
void labels_after_fork_child();

}  // namespace andweorc::runtime

#endif  // ANDWEORC_RUNTIME_LABELS_H_
