// terminal.h: whether output to a file descriptor is a terminal that takes
// color and redraws.
#ifndef ANDWEORC_CLI_TERMINAL_H_
#define ANDWEORC_CLI_TERMINAL_H_

#include <unistd.h>

#include <cstdlib>
#include <string_view>

namespace andweorc::cli {

// A terminal that can redraw a line (not TERM=dumb).
inline bool is_terminal(int fd) {
  const char* term = std::getenv("TERM");
  return isatty(fd) && !(term && std::string_view(term) == "dumb");
}

// A terminal that does not ask otherwise (https://no-color.org).
inline bool use_color(int fd) {
  return is_terminal(fd) && std::getenv("NO_COLOR") == nullptr;
}

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_TERMINAL_H_
