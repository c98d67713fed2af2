// frame_name.cc: see frame_name.h.
#include "report/frame_name.h"

namespace andweorc::report {

std::string frame_name(const profile::Frame& f) {
  if (!f.function.empty()) return f.function;
  if (f.module.empty()) return "[unknown]";
  size_t slash = f.module.rfind('/');
  return "[" +
         (slash == std::string::npos ? f.module : f.module.substr(slash + 1)) +
         "]";
}

std::string label_frame_name(const profile::Label& l) {
  return "[label " + l.key + "=" + l.value + "]";
}

}  // namespace andweorc::report
