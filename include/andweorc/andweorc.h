/* andweorc.h: progress points for the andweorc causal profiler (C and C++).
 *
 * Include this header and mark where useful work completes:
 *
 *   ANDWEORC_PROGRESS("request_done");      // throughput point
 *   ANDWEORC_BEGIN("query"); ... ANDWEORC_END("query");   // latency point
 *   { ANDWEORC_LATENCY_SCOPE("query"); ... }              // C++ RAII form
 *
 * No link-time dependency: the runtime (libandweorc.so) is found at run time
 * with dlsym. When it is not loaded, a point costs one predictable branch.
 * When it is loaded, a point increments a counter owned by the calling thread
 * (no syscall, no lock, no cache line shared between threads); the profiler
 * sums the per-thread counters when it reads them.
 *
 * Names must be string literals (or strings that live for the whole program).
 */
#ifndef ANDWEORC_ANDWEORC_H_
#define ANDWEORC_ANDWEORC_H_

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ANDWEORC_KIND_THROUGHPUT 1
#define ANDWEORC_KIND_BEGIN 2
#define ANDWEORC_KIND_END 3

/* Per-thread counter slots the runtime hands out; slot 0 is never used. */
#define ANDWEORC_MAX_COUNTERS 512

/* One static instance per point in the source. `id` is 0 until the first
 * visit resolves it, then the counter slot (> 0), or -1 when the runtime is
 * absent or out of slots. */
typedef struct andweorc_site {
  const char* name;
  int kind;
  int id;
} andweorc_site_t;

/* ---- Runtime ABI (exported by libandweorc.so; looked up, never linked) ----
 */
/* Returns the counter slot for (kind, name), or -1. Thread-safe, may lock. */
int andweorc_register_point(int kind, const char* name);
/* Returns the calling thread's counter array (ANDWEORC_MAX_COUNTERS slots). */
uint64_t* andweorc_thread_counters(void);

/* Re-declared weak (after <dlfcn.h>, as coz.h does, so the two headers mix)
 * so that programs need not link libdl on glibc < 2.34. */
void* dlsym(void* handle, const char* symbol) __attribute__((weak));

typedef int (*andweorc_register_fn_)(int, const char*);
typedef uint64_t* (*andweorc_counters_fn_)(void);

/* Per translation unit, per thread: this thread's counter array. */
static __thread uint64_t* andweorc_tls_counters_;

__attribute__((noinline, cold, unused)) static void andweorc_hit_slow_(
    andweorc_site_t* site) {
  static andweorc_register_fn_ reg;
  static andweorc_counters_fn_ counters;
  static int looked_up;
  if (!__atomic_load_n(&looked_up, __ATOMIC_ACQUIRE)) {
    if (dlsym) {
      /* RTLD_DEFAULT is ((void*)0) in glibc. */
      reg = (andweorc_register_fn_)dlsym((void*)0, "andweorc_register_point");
      counters =
          (andweorc_counters_fn_)dlsym((void*)0, "andweorc_thread_counters");
    }
    __atomic_store_n(&looked_up, 1, __ATOMIC_RELEASE);
  }
  int id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
  if (id == 0) {
    id = (reg && counters) ? reg(site->kind, site->name) : -1;
    if (id <= 0) id = -1;
    __atomic_store_n(&site->id, id, __ATOMIC_RELAXED);
  }
  if (id < 0) return;
  if (!andweorc_tls_counters_) andweorc_tls_counters_ = counters();
  if (!andweorc_tls_counters_) return;
  uint64_t* slot = &andweorc_tls_counters_[id];
  __atomic_store_n(slot, *slot + 1, __ATOMIC_RELAXED);
}

/* The hot path. Only the owning thread writes its counters, so a relaxed
 * load + store (a plain `add` on x86) is enough; readers use relaxed loads. */
__attribute__((always_inline, unused)) static inline void andweorc_hit_(
    andweorc_site_t* site) {
  int id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
  if (__builtin_expect(id < 0, 0)) return; /* runtime absent */
  uint64_t* counters = andweorc_tls_counters_;
  if (__builtin_expect(id > 0 && counters != 0, 1)) {
    uint64_t* slot = &counters[id];
    __atomic_store_n(slot, *slot + 1, __ATOMIC_RELAXED);
    return;
  }
  andweorc_hit_slow_(site);
}

#define ANDWEORC_STR2_(x) #x
#define ANDWEORC_STR_(x) ANDWEORC_STR2_(x)
#define ANDWEORC_CAT2_(a, b) a##b
#define ANDWEORC_CAT_(a, b) ANDWEORC_CAT2_(a, b)

#define ANDWEORC_POINT_(kind, name)                              \
  do {                                                           \
    static andweorc_site_t andweorc_site_ = {(name), (kind), 0}; \
    andweorc_hit_(&andweorc_site_);                              \
  } while (0)

/* One unit of work completed (throughput point). */
#define ANDWEORC_PROGRESS(name) ANDWEORC_POINT_(ANDWEORC_KIND_THROUGHPUT, name)
/* A throughput point named after its file and line. */
#define ANDWEORC_PROGRESS_HERE() \
  ANDWEORC_PROGRESS(__FILE__ ":" ANDWEORC_STR_(__LINE__))
/* A transaction starts / ends (latency point; pair them by name). */
#define ANDWEORC_BEGIN(name) ANDWEORC_POINT_(ANDWEORC_KIND_BEGIN, name)
#define ANDWEORC_END(name) ANDWEORC_POINT_(ANDWEORC_KIND_END, name)

/* ---- Custom synchronization and hand-offs (causal experiments) ----
 *
 * andweorc sees pthread, semaphore, sleep and I/O calls by itself. Code that
 * blocks or wakes threads some other way (its own futexes, spin-then-park
 * queues) tells it so, or virtual speed-ups are mis-measured:
 *
 *   ANDWEORC_PRE_BLOCK();            before waiting for another thread
 *   ANDWEORC_POST_BLOCK(woken);      after: woken != 0 if another thread woke
 *                                    us (it paid our delays), 0 on timeout
 *   ANDWEORC_CATCH_UP();             before waking another thread
 *
 * Work handed between threads (task queues, thread pools) carries its
 * producer's delay count: take a token when the task is made, adopt it when
 * it runs.
 *
 *   task.token = andweorc_task_token();      producer
 *   andweorc_task_adopt(task.token);         consumer, before running it
 *
 * Without the runtime these cost one predictable branch and do nothing. The
 * same functions are exported by the runtime for programs that link it. */
void andweorc_pre_block(void);
void andweorc_post_block(int woken_by_thread);
void andweorc_catch_up(void);
uint64_t andweorc_handoff_token(void);
void andweorc_handoff_adopt(uint64_t token);

#define ANDWEORC_LOOKUP_(type, name, var)                     \
  static type var;                                            \
  static int var##_looked_up;                                 \
  if (!__atomic_load_n(&var##_looked_up, __ATOMIC_ACQUIRE)) { \
    var = (type)(dlsym ? dlsym((void*)0, name) : 0);          \
    __atomic_store_n(&var##_looked_up, 1, __ATOMIC_RELEASE);  \
  }

__attribute__((unused)) static inline void andweorc_call_void_(int which,
                                                               int arg) {
  typedef void (*void_fn)(void);
  typedef void (*int_fn)(int);
  if (which == 0) {
    ANDWEORC_LOOKUP_(void_fn, "andweorc_pre_block", pre)
    if (pre) pre();
  } else if (which == 1) {
    ANDWEORC_LOOKUP_(int_fn, "andweorc_post_block", post)
    if (post) post(arg);
  } else {
    ANDWEORC_LOOKUP_(void_fn, "andweorc_catch_up", catch_up)
    if (catch_up) catch_up();
  }
}

#define ANDWEORC_PRE_BLOCK() andweorc_call_void_(0, 0)
#define ANDWEORC_POST_BLOCK(woken_by_thread) \
  andweorc_call_void_(1, (woken_by_thread) != 0)
#define ANDWEORC_CATCH_UP() andweorc_call_void_(2, 0)

__attribute__((unused)) static inline uint64_t andweorc_task_token(void) {
  typedef uint64_t (*token_fn)(void);
  ANDWEORC_LOOKUP_(token_fn, "andweorc_handoff_token", token)
  return token ? token() : 0;
}

__attribute__((unused)) static inline void andweorc_task_adopt(uint64_t t) {
  typedef void (*adopt_fn)(uint64_t);
  ANDWEORC_LOOKUP_(adopt_fn, "andweorc_handoff_adopt", adopt)
  if (adopt && t) adopt(t);
}

#ifdef __cplusplus
} /* extern "C" */

namespace andweorc {

/* RAII latency point: BEGIN on construction, END on destruction. Use through
 * ANDWEORC_LATENCY_SCOPE so that each scope has its own static sites. */
class LatencyScope {
 public:
  LatencyScope(andweorc_site_t* begin, andweorc_site_t* end) : end_(end) {
    andweorc_hit_(begin);
  }
  ~LatencyScope() { andweorc_hit_(end_); }
  LatencyScope(const LatencyScope&) = delete;
  LatencyScope& operator=(const LatencyScope&) = delete;

 private:
  andweorc_site_t* end_;
};

}  // namespace andweorc

#define ANDWEORC_LATENCY_SCOPE(name)                                       \
  static andweorc_site_t ANDWEORC_CAT_(andweorc_begin_site_, __LINE__) = { \
      (name), ANDWEORC_KIND_BEGIN, 0};                                     \
  static andweorc_site_t ANDWEORC_CAT_(andweorc_end_site_, __LINE__) = {   \
      (name), ANDWEORC_KIND_END, 0};                                       \
  ::andweorc::LatencyScope ANDWEORC_CAT_(andweorc_scope_, __LINE__)(       \
      &ANDWEORC_CAT_(andweorc_begin_site_, __LINE__),                      \
      &ANDWEORC_CAT_(andweorc_end_site_, __LINE__))
#endif /* __cplusplus */

#endif /* ANDWEORC_ANDWEORC_H_ */
