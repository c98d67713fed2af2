// runtime_locator.h: finds libandweorc.so for `andweorc run`.
#ifndef ANDWEORC_CLI_RUNTIME_LOCATOR_H_
#define ANDWEORC_CLI_RUNTIME_LOCATOR_H_

#include <string>
#include <vector>

namespace andweorc::cli {

// $ANDWEORC_RUNTIME if set, else <dir of this executable>/../<install
// libdir>/libandweorc.so (an installed tree), ../lib/libandweorc.so (the
// build tree, and installed trees whose libdir is lib). Returns "" and
// fills *tried with the candidates when none exists.
std::string locate_runtime(std::vector<std::string>* tried);

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_RUNTIME_LOCATOR_H_
