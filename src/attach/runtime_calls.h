// runtime_calls.h: the two visits `andweorc attach` pays a process: load
// the runtime (dlopen inside the process) and call its start entry point,
// later call its stop entry point (src/runtime/attach_entry.cc). Each visit
// seizes one thread (injector.h) and lets it go with its registers as they
// were.
#ifndef ANDWEORC_ATTACH_RUNTIME_CALLS_H_
#define ANDWEORC_ATTACH_RUNTIME_CALLS_H_

#include <string>

#include "symbols/symbolizer.h"

namespace andweorc::attach {

// /proc/PID/maps, parsed ("" when unreadable).
symbols::ProcessMaps target_maps(int pid);

// Loads `runtime` (an absolute, canonical path) into process `pid` with
// dlopen(RTLD_NOW | RTLD_GLOBAL) unless it is loaded already, then calls
// andweorc_attach_start(settings_path). Returns its runtime::AttachStart
// value (0: started), or -1 with *error set when the visit itself failed.
int start_in_process(int pid, const std::string& runtime,
                     const std::string& settings_path, std::string* error);

// Calls andweorc_attach_stop() in the process: 0 stopped, 1 nothing was
// running, -1 with *error set when the visit failed.
int stop_in_process(int pid, const std::string& runtime, std::string* error);

// What an AttachStart value means, for the user.
std::string describe_start_result(int code);

}  // namespace andweorc::attach

#endif  // ANDWEORC_ATTACH_RUNTIME_CALLS_H_
