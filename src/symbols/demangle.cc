// demangle.cc: thin wrapper over abi::__cxa_demangle that never fails.
#include "symbols/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace andweorc::symbols {

std::string demangle(std::string_view name) {
  // Only mangled names go to the demangler: it would happily "demangle" some
  // plain C identifiers (e.g. "f" as a type name).
  if (name.size() < 2 || name[0] != '_' || name[1] != 'Z') {
    return std::string(name);
  }
  std::string mangled(name);  // __cxa_demangle needs a NUL terminator
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
      &std::free);
  if (status != 0 || out == nullptr) return mangled;
  return std::string(out.get());
}

}  // namespace andweorc::symbols
