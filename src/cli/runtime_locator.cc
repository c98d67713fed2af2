// runtime_locator.cc: see runtime_locator.h.
#include "cli/runtime_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

namespace andweorc::cli {

std::string locate_runtime(std::vector<std::string>* tried) {
  namespace fs = std::filesystem;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("ANDWEORC_RUNTIME"); env && *env)
    candidates.push_back(env);
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path bin = self.parent_path();
#ifdef ANDWEORC_INSTALL_LIBDIR
    // An installed tree's library directory, e.g. lib/x86_64-linux-gnu.
    candidates.push_back(
        (bin / ".." / ANDWEORC_INSTALL_LIBDIR / "libandweorc.so")
            .lexically_normal());
#endif
    candidates.push_back((bin / "../lib/libandweorc.so").lexically_normal());
    candidates.push_back((bin / "../lib64/libandweorc.so").lexically_normal());
  }
  for (const auto& c : candidates) {
    if (access(c.c_str(), R_OK) == 0) return fs::absolute(c).string();
  }
  *tried = candidates;
  return "";
}

}  // namespace andweorc::cli
