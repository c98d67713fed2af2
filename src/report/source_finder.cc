// source_finder.cc: the one rule for finding a recorded source file
// (source_finder.h).
#include "report/source_finder.h"

#include <sys/stat.h>

#include <string_view>

namespace andweorc::report {
namespace {

bool is_regular_file(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string locate_source(const std::string& file,
                          const std::vector<std::string>& roots) {
  if (is_regular_file(file)) return file;
  // Suffixes at each '/' boundary, longest first; none that climbs up.
  std::vector<std::string> suffixes;
  for (size_t at = 0;;) {
    std::string_view rest = std::string_view(file).substr(at);
    if (!rest.empty() && rest[0] != '/' && !rest.starts_with("../") &&
        !rest.starts_with("./")) {
      suffixes.emplace_back(rest);
    }
    size_t slash = file.find('/', at);
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  for (const std::string& root : roots) {
    for (const std::string& suffix : suffixes) {
      std::string path =
          root.empty() || root == "." ? suffix : root + "/" + suffix;
      if (is_regular_file(path)) return path;
    }
  }
  return "";
}

}  // namespace andweorc::report
