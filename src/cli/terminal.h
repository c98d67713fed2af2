// terminal.h: whether output to a file descriptor should use color.
#ifndef ANDWEORC_CLI_TERMINAL_H_
#define ANDWEORC_CLI_TERMINAL_H_

#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace andweorc::cli {

// A terminal that does not ask otherwise (https://no-color.org).
inline bool use_color(int fd) {
  const char* term = std::getenv("TERM");
  return isatty(fd) && std::getenv("NO_COLOR") == nullptr &&
         !(term && std::string_view(term) == "dumb");
}

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_TERMINAL_H_
