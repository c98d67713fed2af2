// labels.cc: see labels.h.
#include "runtime/labels.h"

#include <string.h>
#include <sys/mman.h>

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

// Each live binding's text, kept so that a fork child can record it again
// in its own raw file (its samples through the trampoline are otherwise
// unlabelled). Laid out as the record's payload: the key padded to 8, then
// the value. mmap'd per trampoline and reused; `valid` (atomic) is set once
// the text is complete and cleared before the trampoline is given back.
struct Text {
  char* buf = nullptr;
  size_t cap = 0;
  uint32_t key_len = 0, value_len = 0;
  int valid = 0;
};
Text g_text[kTrampolineCount];

void keep_text(uint32_t index, const char* key, uint32_t key_len,
               const char* value, uint32_t value_len) {
  Text& t = g_text[index];
  __atomic_store_n(&t.valid, 0, __ATOMIC_RELEASE);
  size_t key_padded = raw::padded8(key_len);
  size_t need = key_padded + value_len;
  if (need > t.cap || t.buf == nullptr) {
    if (t.buf != nullptr) munmap(t.buf, t.cap);
    size_t bytes = (need + 4095) & ~size_t(4095);
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    t.buf = mem == MAP_FAILED ? nullptr : static_cast<char*>(mem);
    t.cap = mem == MAP_FAILED ? 0 : bytes;
    if (t.buf == nullptr) return;  // not replayed into a fork child
  }
  memset(t.buf, 0, key_padded);
  memcpy(t.buf, key, key_len);
  memcpy(t.buf + key_padded, value, value_len);
  t.key_len = key_len;
  t.value_len = value_len;
  __atomic_store_n(&t.valid, 1, __ATOMIC_RELEASE);
}

// Writes one binding record now: trampoline `index` runs the label whose
// key and value are `text` (key padded to 8, then the value). Ordinary
// threads only (takes io_lock, which no signal handler takes).
void write_binding(uint32_t index, const char* text, uint32_t key_len,
                   uint32_t value_len) {
  CodeRange range = trampoline_range(index);
  CodeRange table = trampoline_table();
  raw::LabelBindingRecord rec{};
  rec.time_ns = monotonic_ns();
  rec.start = range.start;
  rec.end = range.end;
  rec.table_start = table.start;
  rec.table_end = table.end;
  rec.trampoline = index;
  rec.key_len = key_len;
  rec.value_len = value_len;
  io_lock().lock();
  if (raw_is_open())
    raw_write(raw::kLabelBinding, &rec, sizeof rec, text,
              raw::padded8(key_len) + value_len);
  io_lock().unlock();
}

// Appends the binding to the raw file, and keeps its text for a fork child
// (replay_binding). Without an open raw file (profiler off) there is
// nothing to record.
void record_binding(uint32_t index, const char* key, const char* value) {
  uint32_t key_len = uint32_t(strnlen(key, kMaxText));
  uint32_t value_len = uint32_t(strnlen(value, kMaxText));
  // key and value padded to 8 each, so the reader can find the value.
  static constexpr size_t kBuf = 2 * (kMaxText + 8);
  char text[kBuf];
  size_t key_padded = raw::padded8(key_len);
  memset(text, 0, key_padded + raw::padded8(value_len));
  memcpy(text, key, key_len);
  memcpy(text + key_padded, value, value_len);
  keep_text(index, key, key_len, value, value_len);
  write_binding(index, text, key_len, value_len);
}

void replay_binding(uint32_t index, const Text& t) {
  write_binding(index, t.buf, t.key_len, t.value_len);
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
  __atomic_store_n(&g_text[index].valid, 0, __ATOMIC_RELEASE);
  push_free(index);
}

void labels_after_fork_child() {
  for (uint32_t i = 0; i < kTrampolineCount; ++i) {
    const Text& t = g_text[i];
    if (__atomic_load_n(&t.valid, __ATOMIC_ACQUIRE) &&
        (i == 0 || __atomic_load_n(&g_in_use[i], __ATOMIC_ACQUIRE)))
      replay_binding(i, t);
  }
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
