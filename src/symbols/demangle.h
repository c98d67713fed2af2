// demangle.h: C++ symbol names -> readable names (abi::__cxa_demangle).
#ifndef ANDWEORC_SYMBOLS_DEMANGLE_H_
#define ANDWEORC_SYMBOLS_DEMANGLE_H_

#include <string>
#include <string_view>

namespace andweorc::symbols {

// Demangles an Itanium-ABI name ("_Z..."); anything else (C names, names that
// fail to demangle) is returned unchanged.
std::string demangle(std::string_view name);

}  // namespace andweorc::symbols

#endif  // ANDWEORC_SYMBOLS_DEMANGLE_H_
