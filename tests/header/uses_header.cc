// uses_header.cc: the public header compiles as C++11 (and every later
// standard the build compiles it with); Label needs C++17 and is left out.
#include <andweorc/andweorc.h>

int andweorc_header_check_cxx() {
  ANDWEORC_PROGRESS("done");
  { ANDWEORC_LATENCY_SCOPE("query"); }
  return 0;
}
