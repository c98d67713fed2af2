// frame_name.h: how exported stacks (folded, speedscope, pprof) name a frame.
#ifndef ANDWEORC_REPORT_FRAME_NAME_H_
#define ANDWEORC_REPORT_FRAME_NAME_H_

#include <string>

#include "profile/profile.h"

namespace andweorc::report {

// The demangled function; else "[<module basename>]"; else "[unknown]".
std::string frame_name(const profile::Frame& f);

// The pseudo-frame that stands for a label in exported stacks:
// "[label key=value]".
std::string label_frame_name(const profile::Label& l);

}  // namespace andweorc::report

#endif  // ANDWEORC_REPORT_FRAME_NAME_H_
