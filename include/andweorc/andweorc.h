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
#include <stdlib.h>
#include <string.h>

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
  /* Named for `andweorc attach`, which clears it (and every site's -1)
   * in a process that reached points before the runtime was loaded. */
  static int andweorc_looked_up_;
  /* Declarations first: C90-minded builds (-Wdeclaration-after-statement)
   * include this header too. */
  int id;
  uint64_t* slot;
  if (!__atomic_load_n(&andweorc_looked_up_, __ATOMIC_ACQUIRE)) {
    if (dlsym) {
      /* RTLD_DEFAULT is ((void*)0) in glibc. */
      reg = (andweorc_register_fn_)dlsym((void*)0, "andweorc_register_point");
      counters =
          (andweorc_counters_fn_)dlsym((void*)0, "andweorc_thread_counters");
    }
    __atomic_store_n(&andweorc_looked_up_, 1, __ATOMIC_RELEASE);
  }
  id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
  if (id == 0) {
    id = (reg && counters) ? reg(site->kind, site->name) : -1;
    if (id <= 0) id = -1;
    __atomic_store_n(&site->id, id, __ATOMIC_RELAXED);
  }
  if (id < 0) return;
  if (!andweorc_tls_counters_) andweorc_tls_counters_ = counters();
  if (!andweorc_tls_counters_) return;
  slot = &andweorc_tls_counters_[id];
  __atomic_store_n(slot, *slot + 1, __ATOMIC_RELAXED);
}

/* The hot path. Only the owning thread writes its counters, so a relaxed
 * load + store (a plain `add` on x86) is enough; readers use relaxed loads. */
__attribute__((always_inline, unused)) static inline void andweorc_hit_(
    andweorc_site_t* site) {
  int id = __atomic_load_n(&site->id, __ATOMIC_RELAXED);
  uint64_t* counters = andweorc_tls_counters_;
  if (__builtin_expect(id < 0, 0)) return; /* runtime absent */
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

#define ANDWEORC_LOOKUP_(type, name, var)                               \
  static type var;                                                      \
  static int var##_andweorc_looked_up_;                                 \
  if (!__atomic_load_n(&var##_andweorc_looked_up_, __ATOMIC_ACQUIRE)) { \
    var = (type)(dlsym ? dlsym((void*)0, name) : 0);                    \
    __atomic_store_n(&var##_andweorc_looked_up_, 1, __ATOMIC_RELEASE);  \
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

/* ---- Labels: which request (query, endpoint, tenant) a sample worked for ----
 *
 *   andweorc_label_t* l = andweorc_label_new("endpoint", "search");
 *   andweorc_label_apply(l, handle_search, request);  // samples in here
 *                                                     // carry endpoint=search
 *   andweorc_label_progress(l, "requests");  // point
 * "requests{endpoint=search}" andweorc_label_free(l);
 *
 * A label holds one of the runtime's trampolines for its lifetime: apply
 * calls fn(arg) through it, so the sampled call chain shows the label (no
 * syscall, no lock, no shared write). Make one label per request or per task
 * group, not per call; apply it as often as you like, from any thread.
 * Labels nest (a sample inside two applies carries both). When every
 * trampoline is taken, new labels share an "andweorc=overflow" one. Without
 * the runtime, apply just calls fn(arg). Labelled points: at most
 * ANDWEORC_LABEL_POINTS names per label; each (name, label) pair uses one of
 * the ANDWEORC_MAX_COUNTERS counter slots, so use them for labels with few
 * values (endpoints, query classes), not for unique ids. */
typedef void (*andweorc_label_fn)(void* arg);
typedef void (*andweorc_trampoline_t_)(andweorc_label_fn fn, void* arg);
#define ANDWEORC_LABEL_POINTS 8

typedef struct andweorc_label_point_ {
  const char* name; /* published last (release); NULL = free slot */
  int claimed;
  andweorc_site_t site;
} andweorc_label_point_t_;

typedef struct andweorc_label {
  andweorc_trampoline_t_ trampoline; /* NULL: runtime absent */
  uint32_t index;                    /* the runtime's trampoline index */
  char* text;                        /* "key=value", for point names */
  andweorc_label_point_t_ points[ANDWEORC_LABEL_POINTS];
} andweorc_label_t;

/* Runtime ABI (exported by libandweorc.so; looked up, never linked). */
void* andweorc_label_acquire(const char* key, const char* value,
                             uint32_t* index);
void andweorc_label_release(uint32_t index);

/* Binds `l` (caller's storage) to (key, value). Not for signal handlers. */
__attribute__((unused)) static inline void andweorc_label_init(
    andweorc_label_t* l, const char* key, const char* value) {
  typedef void* (*acquire_fn)(const char*, const char*, uint32_t*);
  ANDWEORC_LOOKUP_(acquire_fn, "andweorc_label_acquire",
                   acquire) { /* a block: declarations first, for
                                 -Wdeclaration-after-statement */
    size_t klen = key ? strlen(key) : 0, vlen = value ? strlen(value) : 0;
    memset(l, 0, sizeof *l);
    l->text = (char*)malloc(klen + vlen + 2);
    if (l->text) {
      memcpy(l->text, key ? key : "", klen);
      l->text[klen] = '=';
      memcpy(l->text + klen + 1, value ? value : "", vlen);
      l->text[klen + vlen + 1] = 0;
    }
    if (acquire)
      l->trampoline = (andweorc_trampoline_t_)acquire(key, value, &l->index);
  }
}

/* Gives the trampoline back. No apply of `l` may be running. */
__attribute__((unused)) static inline void andweorc_label_destroy(
    andweorc_label_t* l) {
  typedef void (*release_fn)(uint32_t);
  ANDWEORC_LOOKUP_(release_fn, "andweorc_label_release", release)
  if (l->trampoline && release) release(l->index);
  l->trampoline = 0;
  free(l->text);
  l->text = 0;
}

/* Calls fn(arg) so that samples taken inside it carry the label. */
__attribute__((unused)) static inline void andweorc_label_apply(
    const andweorc_label_t* l, andweorc_label_fn fn, void* arg) {
  if (__builtin_expect(l != 0 && l->trampoline != 0, 1))
    l->trampoline(fn, arg);
  else
    fn(arg);
}

__attribute__((noinline, cold, unused)) static void andweorc_label_point_slow_(
    andweorc_label_t* l, int kind, const char* name) {
  ANDWEORC_LOOKUP_(andweorc_register_fn_, "andweorc_register_point", reg)
  for (int i = 0; i < ANDWEORC_LABEL_POINTS; ++i) {
    andweorc_label_point_t_* p = &l->points[i];
    const char* n = __atomic_load_n(&p->name, __ATOMIC_ACQUIRE);
    size_t nlen, tlen;
    char* full;
    int id;
    if (n != 0 && p->site.kind == kind && strcmp(n, name) == 0) {
      andweorc_hit_(&p->site);
      return;
    }
    if (n != 0 || __atomic_exchange_n(&p->claimed, 1, __ATOMIC_ACQ_REL))
      continue; /* taken (maybe being filled by another thread) */
    /* "name{key=value}": the runtime copies it, so it may be freed. */
    nlen = strlen(name);
    tlen = l->text ? strlen(l->text) : 0;
    full = (char*)malloc(nlen + tlen + 3);
    id = -1;
    if (full && reg) {
      memcpy(full, name, nlen);
      full[nlen] = '{';
      memcpy(full + nlen + 1, l->text ? l->text : "", tlen);
      full[nlen + tlen + 1] = '}';
      full[nlen + tlen + 2] = 0;
      id = reg(kind, full);
    }
    free(full);
    p->site.name = 0;
    p->site.kind = kind;
    p->site.id = id > 0 ? id : -1;
    __atomic_store_n(&p->name, name, __ATOMIC_RELEASE);
    andweorc_hit_(&p->site);
    return;
  }
}

/* Counts a visit of progress point `name` for this label only: the point is
 * named "name{key=value}". `name` should be a string literal. */
__attribute__((always_inline, unused)) static inline void andweorc_label_point_(
    andweorc_label_t* l, int kind, const char* name) {
  for (int i = 0; i < ANDWEORC_LABEL_POINTS; ++i) {
    andweorc_label_point_t_* p = &l->points[i];
    const char* n = __atomic_load_n(&p->name, __ATOMIC_ACQUIRE);
    if (n == name && p->site.kind == kind) {
      andweorc_hit_(&p->site);
      return;
    }
    if (n == 0) break;
  }
  andweorc_label_point_slow_(l, kind, name);
}

#define andweorc_label_progress(l, name) \
  andweorc_label_point_((l), ANDWEORC_KIND_THROUGHPUT, (name))
#define andweorc_label_begin(l, name) \
  andweorc_label_point_((l), ANDWEORC_KIND_BEGIN, (name))
#define andweorc_label_end(l, name) \
  andweorc_label_point_((l), ANDWEORC_KIND_END, (name))

/* Heap-allocated labels (NULL only when out of memory; NULL is accepted by
 * apply, which then calls fn directly). */
__attribute__((unused)) static inline andweorc_label_t* andweorc_label_new(
    const char* key, const char* value) {
  andweorc_label_t* l = (andweorc_label_t*)malloc(sizeof *l);
  if (l) andweorc_label_init(l, key, value);
  return l;
}

__attribute__((unused)) static inline void andweorc_label_free(
    andweorc_label_t* l) {
  if (!l) return;
  andweorc_label_destroy(l);
  free(l);
}

#ifdef __cplusplus
} /* extern "C" */

#include <new>
#include <type_traits>

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

/* Label needs C++17 (if constexpr, invoke_result); C++11/14 code has the
 * progress points, LatencyScope and the C label API. */
#if __cplusplus >= 201703L
/* A label for the samples of work done through apply (see the C API above).
 *
 *   andweorc::Label label("endpoint", "search");   // binds a trampoline
 *   auto result = label.apply([&] { return search(query); });
 *   label.progress("requests");          // point "requests{endpoint=search}"
 *
 * apply returns what the callable returns (values, references, void) and
 * lets its exceptions through. Movable, not copyable. */
class Label {
 public:
  Label(const char* key, const char* value) {
    andweorc_label_init(&label_, key, value);
  }
  ~Label() { andweorc_label_destroy(&label_); }
  Label(const Label&) = delete;
  Label& operator=(const Label&) = delete;
  // The trampoline moves along; the moved-from label applies directly.
  // Neither may be in use (applied, counted) while it moves.
  Label(Label&& other) noexcept : label_(other.label_) {
    memset(&other.label_, 0, sizeof other.label_);
  }
  Label& operator=(Label&&) = delete;

  template <typename F, typename R = std::invoke_result_t<F&&>>
  R apply(F&& f) const {
    using Fn = std::remove_reference_t<F>;
    if (__builtin_expect(label_.trampoline == 0, 0))
      return static_cast<F&&>(f)();
    if constexpr (in_registers_<R>()) {
      // The trampoline does not touch the return registers after its call
      // (label_trampolines.cc), so a thunk's register result comes back
      // through it as from any function: no result slot in memory. The
      // trampoline is assembly; calling it through this pointer type is
      // only the x86-64 calling convention, as for the C pointer type.
      using Thunk = Ret_<R> (*)(void*);
      using Tramp = Ret_<R> (*)(Thunk, void*);
      // Through void (*)(void), the type -Wcast-function-type exempts.
      Tramp tramp = reinterpret_cast<Tramp>(
          reinterpret_cast<void (*)(void)>(label_.trampoline));
      Thunk thunk;
      void* arg;
      if constexpr (by_value_<F>()) {
        // A small trivially copyable temporary (the usual lambda capturing
        // a value or one reference) travels in the argument register.
        uintptr_t bits = 0;
        memcpy(&bits, static_cast<const void*>(&f), sizeof(Fn));
        thunk = &call_value_<F, R>;
        arg = reinterpret_cast<void*>(bits);
      } else {
        thunk = &call_ref_<F, R>;
        arg = const_cast<void*>(static_cast<const void*>(&f));
      }
      // The empty asm after the call keeps it a call: as a tail jump, the
      // function that applied the label would leave the call chain of
      // every sample taken under it (it costs no instruction).
      if constexpr (std::is_void_v<R>) {
        tramp(thunk, arg);
        __asm__ __volatile__("");
      } else {
        Ret_<R> r = tramp(thunk, arg);
        __asm__ __volatile__("");
        if constexpr (std::is_reference_v<R>)
          return static_cast<R>(*r);
        else
          return r;
      }
    } else {
      Call<Fn, F, R> call{&f, {}};
      label_.trampoline(&call_result_<Fn, F, R>, &call);
      return static_cast<R&&>(call.result.value);
    }
  }

  // Labelled progress points: "name{key=value}" (name: a string literal).
  void progress(const char* name) {
    andweorc_label_point_(&label_, ANDWEORC_KIND_THROUGHPUT, name);
  }
  void begin(const char* name) {
    andweorc_label_point_(&label_, ANDWEORC_KIND_BEGIN, name);
  }
  void end(const char* name) {
    andweorc_label_point_(&label_, ANDWEORC_KIND_END, name);
  }
  // False when the runtime is not loaded (apply then calls directly).
  bool active() const { return label_.trampoline != 0; }

 private:
  // Results the x86-64 calling convention returns in registers (rax/rdx,
  // xmm0, st0), which pass through the trampoline untouched: void, scalars
  // (integers, floating point, pointers, enums) and references (returned
  // as pointers). Anything else is built in a slot in apply's frame.
  template <typename R>
  static constexpr bool in_registers_() {
    return std::is_void_v<R> || std::is_scalar_v<R> || std::is_reference_v<R>;
  }
  template <typename R>
  using Ret_ = std::conditional_t<std::is_reference_v<R>,
                                  std::remove_reference_t<R>*, R>;
  // The callable is passed by value (its bytes in the void* argument) only
  // when that cannot be told apart from calling it in place: a temporary
  // (or moved) object, trivially copyable (copying has no side effect),
  // at most pointer-sized. An lvalue is called in place, so that a mutable
  // callable's state changes stay in the caller's object.
  template <typename F>
  static constexpr bool by_value_() {
    using Fn = std::remove_reference_t<F>;
    return !std::is_lvalue_reference_v<F> && std::is_trivially_copyable_v<Fn> &&
           sizeof(Fn) <= sizeof(void*);
  }
  template <typename F, typename R>
  static Ret_<R> call_value_(void* bits) {
    using Obj = std::remove_cv_t<std::remove_reference_t<F>>;
    // Storage without construction (Obj need not be default-constructible);
    // memcpy makes the trivially copyable object.
    union Storage {
      Obj obj;
      Storage() {}
    } s;
    uintptr_t b = reinterpret_cast<uintptr_t>(bits);
    memcpy(static_cast<void*>(&s.obj), &b, sizeof(Obj));
    return call_ref_<F, R>(&s.obj);
  }
  template <typename F, typename R>
  static Ret_<R> call_ref_(void* f) {
    auto&& fn = static_cast<F&&>(*static_cast<std::remove_reference_t<F>*>(f));
    if constexpr (std::is_void_v<R>)
      static_cast<F&&>(fn)();
    else if constexpr (std::is_reference_v<R>) {
      R r = static_cast<F&&>(fn)();  // named, so an lvalue even for R&&
      return &r;
    } else
      return static_cast<F&&>(fn)();
  }
  // The result is built inside the trampoline call; a union member, so R
  // need not be default-constructible.
  template <typename R>
  struct Slot {
    union {
      R value;
    };
    bool set = false;
    Slot() {}
    ~Slot() {
      if (set) value.~R();
    }
  };
  template <typename Fn, typename F, typename R>
  struct Call {
    Fn* f;
    Slot<R> result;
  };
  template <typename Fn, typename F, typename R>
  static void call_result_(void* p) {
    auto* c = static_cast<Call<Fn, F, R>*>(p);
    ::new (static_cast<void*>(&c->result.value)) R(static_cast<F&&>(*c->f)());
    c->result.set = true;
  }
  mutable andweorc_label_t label_;
};
#endif /* __cplusplus >= 201703L */

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
