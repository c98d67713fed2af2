// source_paths.cc: lexical path normalisation and the roots reports show
// source paths relative to (see source_paths.h).
#include "report/source_paths.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "report/display.h"

namespace andweorc::report {
namespace {

// Headers of the system and the compiler: inlined into the program's
// functions, they would pull the auto root up to "/" (or "/usr/") and hide
// what the program's own paths have in common.
bool is_system_path(std::string_view p) {
  for (std::string_view prefix :
       {"/usr/include/", "/usr/local/include/", "/usr/lib/"}) {
    if (p.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

bool under(std::string_view path, std::string_view root) {
  return path.size() > root.size() && path.substr(0, root.size()) == root;
}

// A normalised directory as a root: ending in '/', "" when it is no root.
std::string as_root(std::string_view dir) {
  std::string r = normalize_path(dir);
  if (r.empty() || r == ".") return "";
  if (r.back() != '/') r.push_back('/');
  return r == "/" ? "" : r;
}

}  // namespace

std::string normalize_path(std::string_view path) {
  if (path.empty()) return "";
  bool absolute = path.front() == '/';
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    i = j + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!absolute) {
        parts.push_back(part);  // above a relative start: keep it
      }                         // above "/": nothing there, dropped
      continue;
    }
    parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k > 0) out.push_back('/');
    out += parts[k];
  }
  if (out.empty()) return ".";
  return out;
}

SourcePaths::SourcePaths(const std::vector<std::string>& files,
                         const std::vector<std::string>& roots) {
  for (const std::string& r : roots) {
    std::string root = as_root(r);
    if (!root.empty() &&
        std::find(roots_.begin(), roots_.end(), root) == roots_.end()) {
      roots_.push_back(std::move(root));
    }
  }
  // Longest first: a file under two nested roots is shown from the nearer.
  std::stable_sort(roots_.begin(), roots_.end(),
                   [](const std::string& a, const std::string& b) {
                     return a.size() > b.size();
                   });
  // A relative path is relative to its compilation directory, which the
  // profile does not record: next to absolute paths it is shown as
  // recorded (normalised), so "../lib/a.h" is not cut at a root it may not
  // share with them.
  std::vector<std::string> normalised;
  bool any_absolute = false;
  for (const std::string& f : files) {
    std::string n = normalize_path(f);
    if (n.empty() || is_system_path(n)) continue;
    any_absolute |= n.front() == '/';
    normalised.push_back(std::move(n));
  }
  std::vector<std::string> rest;
  for (std::string& n : normalised) {
    if (any_absolute && n.front() != '/') continue;
    bool claimed =
        std::any_of(roots_.begin(), roots_.end(),
                    [&](const std::string& r) { return under(n, r); });
    if (!claimed) rest.push_back(std::move(n));
  }
  std::string auto_root = as_root(common_dir(rest));
  if (!auto_root.empty() &&
      std::find(roots_.begin(), roots_.end(), auto_root) == roots_.end()) {
    roots_.push_back(std::move(auto_root));
  }
}

std::string SourcePaths::display(std::string_view file) const {
  std::string n = normalize_path(file);
  for (const std::string& r : roots_) {
    if (under(n, r)) return n.substr(r.size());
  }
  return n;
}

std::string SourcePaths::roots_text() const {
  std::string out;
  for (const std::string& r : roots_) {
    if (!out.empty()) out += ", ";
    out += r;
  }
  return out;
}

std::vector<std::string> absolute_roots(const std::vector<std::string>& roots) {
  std::vector<std::string> out;
  for (const std::string& r : roots) {
    if (r.empty() || normalize_path(r) == ".") continue;
    if (r.front() == '/') {
      out.push_back(normalize_path(r));
      continue;
    }
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (ec) continue;  // no working directory: the root cannot match
    out.push_back(normalize_path(cwd.string() + "/" + r));
  }
  return out;
}

}  // namespace andweorc::report
