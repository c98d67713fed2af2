// labels.cc: see labels.h.
#include "runtime/labels.h"

#include <string.h>

#include "runtime/raw_format.h"
#include "runtime/raw_writer.h"
#include "runtime/runtime.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {
namespace {

// Treiber stack of free trampolines. head = (tag << 32) | index, index 0 =
// empty; the tag grows on every change so a pop cannot be fooled by a
// release and re-acquire in between (ABA).
struct FreeList {
  uint32_t next[kTrampolineCount];
  uint64_t head;
  constexpr FreeList() : next(), head(1) {
    for (uint32_t i = 1; i < kTrampolineCount; ++i)
      next[i] = i + 1 < kTrampolineCount ? i + 1 : 0;
  }
};
constinit FreeList g_free;
// 1 while a trampoline is handed out; guards against double releases.
uint8_t g_in_use[kTrampolineCount];
uint64_t g_overflows;
int g_overflow_recorded;

constexpr char kOverflowKey[] = "andweorc";
constexpr char kOverflowValue[] = "overflow";
constexpr size_t kMaxText = 4096;  // longer keys and values are cut

uint32_t pop_free() {
  uint64_t head = __atomic_load_n(&g_free.head, __ATOMIC_ACQUIRE);
  for (;;) {
    uint32_t index = uint32_t(head);
    if (index == 0) return 0;
    uint32_t next = __atomic_load_n(&g_free.next[index], __ATOMIC_RELAXED);
    uint64_t wanted = ((head >> 32) + 1) << 32 | next;
    if (__atomic_compare_exchange_n(&g_free.head, &head, wanted, true,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return index;
  }
}

void push_free(uint32_t index) {
  uint64_t head = __atomic_load_n(&g_free.head, __ATOMIC_ACQUIRE);
  for (;;) {
    __atomic_store_n(&g_free.next[index], uint32_t(head), __ATOMIC_RELAXED);
    uint64_t wanted = ((head >> 32) + 1) << 32 | index;
    if (__atomic_compare_exchange_n(&g_free.head, &head, wanted, true,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return;
  }
}

// Appends the binding to the raw file. Ordinary threads only (takes io_lock,
// which no signal handler takes). Without an open raw file (profiler off)
// there is nothing to record.
void record_binding(uint32_t index, const char* key, const char* value) {
  CodeRange range = trampoline_range(index);
  raw::LabelBindingRecord rec{};
  rec.time_ns = monotonic_ns();
  rec.start = range.start;
  rec.end = range.end;
  CodeRange table = trampoline_table();
  rec.table_start = table.start;
  rec.table_end = table.end;
  rec.trampoline = index;
  rec.key_len = uint32_t(strnlen(key, kMaxText));
  rec.value_len = uint32_t(strnlen(value, kMaxText));
  // key and value padded to 8 each, so the reader can find the value.
  static constexpr size_t kBuf = 2 * (kMaxText + 8);
  char text[kBuf];
  size_t key_padded = raw::padded8(rec.key_len);
  memset(text, 0, key_padded + raw::padded8(rec.value_len));
  memcpy(text, key, rec.key_len);
  memcpy(text + key_padded, value, rec.value_len);
  io_lock().lock();
  if (raw_is_open())
    raw_write(raw::kLabelBinding, &rec, sizeof rec, text,
              key_padded + rec.value_len);
  io_lock().unlock();
}

}  // namespace

Trampoline label_acquire(const char* key, const char* value, uint32_t* index) {
  if (key == nullptr) key = "";
  if (value == nullptr) value = "";
  uint32_t i = pop_free();
  if (i == 0) {
    __atomic_add_fetch(&g_overflows, 1, __ATOMIC_RELAXED);
    if (!__atomic_exchange_n(&g_overflow_recorded, 1, __ATOMIC_ACQ_REL))
      record_binding(0, kOverflowKey, kOverflowValue);
    *index = 0;
    return trampoline_at(0);
  }
  __atomic_store_n(&g_in_use[i], 1, __ATOMIC_RELAXED);
  // Recorded before the label can be applied, so every sample through this
  // trampoline from now on is later than the binding.
  record_binding(i, key, value);
  *index = i;
  return trampoline_at(i);
}

void label_release(uint32_t index) {
  if (index == 0 || index >= kTrampolineCount) return;
  if (!__atomic_exchange_n(&g_in_use[index], 0, __ATOMIC_ACQ_REL)) return;
  push_free(index);
}

uint64_t label_overflows() {
  return __atomic_load_n(&g_overflows, __ATOMIC_RELAXED);
}

}  // namespace andweorc::runtime

extern "C" {

// The ABI behind andweorc_label_init in <andweorc/andweorc.h>.
__attribute__((visibility("default"))) void* andweorc_label_acquire(
    const char* key, const char* value, uint32_t* index) {
  return reinterpret_cast<void*>(
      andweorc::runtime::label_acquire(key, value, index));
}

__attribute__((visibility("default"))) void andweorc_label_release(
    uint32_t index) {
  andweorc::runtime::label_release(index);
}

}  // extern "C"
