/* real_functions.c: resolves the one table of real functions (see the
 * header). Runs as a priority-101 constructor, before the runtime's own
 * constructor and before most of the program's. */
#define _GNU_SOURCE
#include "runtime/real_functions.h"

#include <dlfcn.h>

struct andweorc_real_functions andweorc_real_table;

static void* resolve(const char* name, const char* version) {
  return version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
}

void andweorc_resolve_real_functions(void) {
  if (__atomic_load_n(&andweorc_real_table.resolved, __ATOMIC_ACQUIRE)) return;
#define ANDWEORC_RESOLVE(type, name, version)                 \
  __atomic_store_n(&andweorc_real_table.name,                 \
                   (__typeof__(type))resolve(#name, version), \
                   __ATOMIC_RELAXED);
  ANDWEORC_REAL_FUNCTIONS(ANDWEORC_RESOLVE)
#undef ANDWEORC_RESOLVE
  __atomic_store_n(&andweorc_real_table.resolved, 1, __ATOMIC_RELEASE);
}

__attribute__((constructor(101))) static void resolve_at_load(void) {
  andweorc_resolve_real_functions();
}
