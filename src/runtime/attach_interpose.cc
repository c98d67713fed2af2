// attach_interpose.cc: see attach_interpose.h.
#include "runtime/attach_interpose.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "runtime/attach_fds.h"
#include "runtime/attach_settings.h"
#include "runtime/got_redirect.h"
#include "runtime/real_functions.h"
#include "runtime/runtime.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {
namespace {

// Calls that start other processes keep going straight to libc: children
// of an attached process are not followed (docs/attach.md).
constexpr const char* kNotRerouted[] = {"daemon",
                                        "popen",
                                        "posix_spawn",
                                        "posix_spawnp",
                                        "posix_spawn_file_actions_adddup2",
                                        "system"};

SpinLock g_lock;           // start, sweeps and stop, one at a time
GotRedirect* g_redirect;   // made at the first attach, kept after
bool g_rerouting = false;  // between start and stop
bool g_retry = false;      // an object was still being loaded

bool rerouted(const char* name) {
  for (const char* n : kNotRerouted)
    if (strcmp(n, name) == 0) return false;
  return true;
}

// The wrappers this library exports, each with the libc function it
// stands for. dlsym on our own link map finds our definition first (a
// name we do not wrap finds libc's: the same as `real`, so left out).
std::vector<GotTarget> wrapper_targets() {
  std::vector<GotTarget> targets;
  Dl_info info;
  link_map* self = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&attach_interpose_start), &info,
              reinterpret_cast<void**>(&self), RTLD_DL_LINKMAP) == 0 ||
      self == nullptr)
    return targets;
  const RealFunctions& r = real();
#define ANDWEORC_TARGET(type, name, version)                        \
  {                                                                 \
    void* wrapper = dlsym(self, #name);                             \
    void* libc = reinterpret_cast<void*>(r.name);                   \
    if (wrapper != nullptr && libc != nullptr && wrapper != libc && \
        rerouted(#name))                                            \
      targets.push_back({#name, libc, wrapper});                    \
  }
  ANDWEORC_REAL_FUNCTIONS(ANDWEORC_TARGET)
#undef ANDWEORC_TARGET
  return targets;
}

}  // namespace

void attach_interpose_start() {
  // `attach --no-wrappers`: the program's calls stay bound to libc.
  const char* wanted = runtime_setting("ANDWEORC_ATTACH_WRAPPERS");
  if (wanted != nullptr && strcmp(wanted, "0") == 0) {
    runtime_write_note_bounded(
        "attach --no-wrappers: the program's calls stay bound to libc, so "
        "delays are not carried across blocking calls");
    return;
  }
  g_lock.lock();
  if (g_redirect == nullptr) {
    g_redirect = new GotRedirect(
        wrapper_targets(), reinterpret_cast<void*>(&attach_interpose_start));
    g_redirect->prepare();
  }
  const ExistingFds fds = classify_existing_fds();
  const GotCounts c = g_redirect->apply();
  g_retry = c.unsettled > 0;
  g_rerouting = true;
  g_lock.unlock();
  char note[512];
  if (c.slots > 0)
    snprintf(note, sizeof note,
             "attach: the runtime's wrappers were put in %d call sites of %d "
             "loaded objects (locks, waits, I/O, threads, signals), so delays "
             "are carried across blocking calls as under `run`; %d "
             "descriptors already open lead to this process, %d epoll sets "
             "were read",
             c.slots, c.objects, fds.internal, fds.epoll);
  else
    snprintf(note, sizeof note,
             "attach: no call site of the program could be pointed at the "
             "runtime's wrappers (%d objects, %d bound elsewhere): delays are "
             "not carried across blocking calls",
             c.objects, c.elsewhere);
  runtime_write_note_bounded(note);
}

void attach_interpose_sweep() {
  g_lock.lock();
  if (g_rerouting && (g_retry || g_redirect->objects_changed()))
    g_retry = g_redirect->apply().unsettled > 0;
  g_lock.unlock();
}

void attach_interpose_stop() {
  g_lock.lock();
  if (g_rerouting) g_redirect->restore();
  g_rerouting = false;
  g_lock.unlock();
}

}  // namespace andweorc::runtime
