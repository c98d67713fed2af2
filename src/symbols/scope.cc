// scope.cc: see scope.h.
#include "symbols/scope.h"

#include <fnmatch.h>

namespace andweorc::symbols {

std::vector<std::string> default_binary_scope() { return {"MAIN"}; }

std::vector<std::string> default_source_scope() {
  return {"*", "!/usr/include/*", "!/usr/lib/*", "!/usr/local/include/*"};
}

bool glob_matches(const std::string& glob, const std::string& path) {
  if (fnmatch(glob.c_str(), path.c_str(), 0) == 0) return true;
  if (glob.find('/') != std::string::npos) return false;
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return false;
  return fnmatch(glob.c_str(), path.c_str() + slash + 1, 0) == 0;
}

ScopeMatcher::ScopeMatcher(std::vector<std::string> binary,
                           std::vector<std::string> source)
    : binary_(std::move(binary)) {
  for (auto& g : source) {
    if (!g.empty() && g[0] == '!')
      source_exclude_.push_back(g.substr(1));
    else
      source_include_.push_back(g);
  }
}

bool ScopeMatcher::binary_matches(const std::string& module,
                                  const std::string& main_executable) const {
  if (module.empty()) return false;
  for (const auto& g : binary_) {
    if (g == "MAIN" ? module == main_executable : glob_matches(g, module))
      return true;
  }
  return false;
}

bool ScopeMatcher::source_matches(const std::string& file) const {
  if (file.empty()) return false;
  for (const auto& g : source_exclude_)
    if (glob_matches(g, file)) return false;
  for (const auto& g : source_include_)
    if (glob_matches(g, file)) return true;
  return false;
}

std::string ScopeMatcher::source_key() const {
  std::string key;
  for (const auto& g : source_include_) key += "+" + g + '\n';
  for (const auto& g : source_exclude_) key += "-" + g + '\n';
  return key;
}

}  // namespace andweorc::symbols
