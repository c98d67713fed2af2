// real_functions.cc: resolves the next definition of each interposed symbol.
#include "runtime/real_functions.h"

#include <dlfcn.h>

namespace andweorc::runtime {
namespace {

RealFunctions g_real;
bool g_resolved = false;

template <typename F>
void resolve(F*& slot, const char* name) {
  slot = reinterpret_cast<F*>(dlsym(RTLD_NEXT, name));
}

}  // namespace

const RealFunctions& real() {
  if (__builtin_expect(!__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE), 0))
    resolve_real_functions();
  return g_real;
}

void resolve_real_functions() {
  if (__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE)) return;
  resolve(g_real.pthread_create, "pthread_create");
  resolve(g_real.sigaction, "sigaction");
  resolve(g_real.signal, "signal");
  resolve(g_real.sigprocmask, "sigprocmask");
  resolve(g_real.pthread_sigmask, "pthread_sigmask");
  resolve(g_real.execve, "execve");
  resolve(g_real.execv, "execv");
  resolve(g_real.execvp, "execvp");
  resolve(g_real.execvpe, "execvpe");
  resolve(g_real._exit, "_exit");
  resolve(g_real._Exit, "_Exit");
  __atomic_store_n(&g_resolved, true, __ATOMIC_RELEASE);
}

}  // namespace andweorc::runtime
