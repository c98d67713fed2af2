// attach_entry.cc: the two functions `andweorc attach` calls inside the
// target, by address, after loading this library with dlopen (src/attach).
// They run on a program thread the tool interrupted with ptrace, with the
// thread's own stack below the red zone: ordinary code, not a handler.
#include "runtime/runtime.h"

extern "C" {

// Returns a runtime::AttachStart value.
__attribute__((visibility("default"))) int andweorc_attach_start(
    const char* settings_path) {
  return int(andweorc::runtime::runtime_attach_start(settings_path));
}

// Returns 0 when an attach was stopped, 1 when none was running.
__attribute__((visibility("default"))) int andweorc_attach_stop(void) {
  return andweorc::runtime::runtime_attach_stop() ? 0 : 1;
}

}  // extern "C"
