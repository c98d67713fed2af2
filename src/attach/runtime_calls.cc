// runtime_calls.cc: see runtime_calls.h.
#include "attach/runtime_calls.h"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

#include "attach/injector.h"
#include "attach/target_symbols.h"

namespace andweorc::attach {
namespace {

// How long a visit waits for a thread at a safe point.
constexpr int kSeizeTimeoutMs = 5000;

// libc's dlopen (glibc >= 2.34), else libdl's (older glibc).
std::optional<uint64_t> find_in_libc(const symbols::ProcessMaps& maps,
                                     const char* name, std::string* error) {
  for (const char* lib : {"libc.so", "libdl.so"}) {
    std::string path = mapped_module(maps, lib);
    if (path.empty()) continue;
    std::string ignored;
    if (auto a = symbol_address(maps, path, name, &ignored)) return a;
  }
  *error = std::string("cannot find ") + name +
           " in the process (is it statically linked, or not linked "
           "against glibc?)";
  return std::nullopt;
}

}  // namespace

symbols::ProcessMaps target_maps(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::ostringstream text;
  text << in.rdbuf();
  return symbols::ProcessMaps::parse(text.str());
}

int start_in_process(int pid, const std::string& runtime,
                     const std::string& settings_path, std::string* error) {
  symbols::ProcessMaps maps = target_maps(pid);
  const bool loaded = module_start(maps, runtime).has_value();
  std::optional<uint64_t> dlopen_at, dlerror_at;
  if (!loaded) {
    dlopen_at = find_in_libc(maps, "dlopen", error);
    dlerror_at = find_in_libc(maps, "dlerror", error);
    if (!dlopen_at || !dlerror_at) return -1;
  }
  Injector in(pid);
  if (!in.seize(kSeizeTimeoutMs, error)) return -1;
  if (!loaded) {
    uint64_t path = in.put(runtime);
    if (path == 0) {
      *error = "cannot write into the process's memory";
      return -1;
    }
    // RTLD_GLOBAL: the program's own progress points look the runtime up
    // with dlsym(RTLD_DEFAULT, ...) (andweorc.h, coz.h).
    auto handle = in.call(*dlopen_at, path, RTLD_NOW | RTLD_GLOBAL, error);
    if (!handle) return -1;
    if (*handle == 0) {
      auto message = in.call(*dlerror_at, 0, 0, error);
      std::string why = message && *message ? in.read_string(*message) : "";
      *error = "dlopen(" + runtime + ") failed in the process" +
               (why.empty() ? "" : ": " + why);
      return -1;
    }
    maps = target_maps(pid);
  }
  auto start_at = symbol_address(maps, runtime, "andweorc_attach_start", error);
  if (!start_at) return -1;
  uint64_t settings = in.put(settings_path);
  auto code = in.call(*start_at, settings, 0, error);
  std::string release_error;
  if (!in.release(&release_error) && code) {
    *error = release_error;
    return -1;
  }
  return code ? int(*code & 0xffffffff) : -1;
}

int stop_in_process(int pid, const std::string& runtime, std::string* error) {
  symbols::ProcessMaps maps = target_maps(pid);
  auto stop_at = symbol_address(maps, runtime, "andweorc_attach_stop", error);
  if (!stop_at) return -1;
  Injector in(pid);
  if (!in.seize(kSeizeTimeoutMs, error)) return -1;
  auto code = in.call(*stop_at, 0, 0, error);
  std::string release_error;
  if (!in.release(&release_error) && code) {
    *error = release_error;
    return -1;
  }
  return code ? int(*code & 0xffffffff) : -1;
}

std::string describe_start_result(int code) {
  switch (code) {
    case 0:
      return "started";
    case 1:
      return "another `andweorc attach` is profiling this process";
    case 2:
      return "the process already runs the andweorc runtime (started by "
             "`andweorc run`, or it links libandweorc and called "
             "andweorc::init())";
    case 3:
      return "another copy of the andweorc runtime is loaded in the process "
             "first";
    case 4:
      return "the runtime could not read its settings file in the process "
             "(is the temporary directory visible to it?)";
    case 5:
      return "the runtime could not start in the process (see the "
             "program's standard error)";
    default:
      return "the runtime's start returned " + std::to_string(code);
  }
}

}  // namespace andweorc::attach
