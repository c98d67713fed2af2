// source_text.cc: see source_text.h.
#include "compare/source_text.h"

#include <sys/stat.h>

#include <fstream>

#include "report/source_finder.h"

namespace andweorc::compare {

SourceText::SourceText(std::string prefix_map) {
  size_t eq = prefix_map.find('=');
  if (eq != std::string::npos) {
    from_ = prefix_map.substr(0, eq);
    to_ = prefix_map.substr(eq + 1);
  }
}

std::string normalize_source(const std::string& text) {
  std::string out;
  bool blank = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

void SourceText::set_file(const std::string& file,
                          std::vector<std::string> lines) {
  for (std::string& l : lines) l = normalize_source(l);
  files_[file] = std::move(lines);
}

const std::vector<std::string>* SourceText::load(const std::string& file) {
  auto it = files_.find(file);
  if (it == files_.end()) {
    std::optional<std::vector<std::string>> lines;
    std::string path = file;
    if (!from_.empty() && path.rfind(from_, 0) == 0) {
      path = to_ + path.substr(from_.size());
    }
    // One rule with the HTML report (report/source_finder.h): as recorded,
    // else a path suffix under the working directory ("../../src/x.c", as
    // debug info records it relative to the build directory, is "src/x.c"
    // from the source tree's root).
    path = report::locate_source(path, {"."});
    struct stat st {};
    auto readable = [&](const std::string& candidate) {
      return !candidate.empty() && ::stat(candidate.c_str(), &st) == 0 &&
             static_cast<size_t>(st.st_size) <= kMaxSourceBytes;
    };
    if (readable(path)) {
      std::ifstream in(path);
      if (in) {
        lines.emplace();
        std::string l;
        while (std::getline(in, l)) lines->push_back(normalize_source(l));
      }
    }
    it = files_.emplace(file, std::move(lines)).first;
  }
  return it->second ? &*it->second : nullptr;
}

std::optional<std::string> SourceText::line(const std::string& file, int n) {
  const std::vector<std::string>* lines = load(file);
  if (!lines || n < 1 || static_cast<size_t>(n) > lines->size()) {
    return std::nullopt;
  }
  const std::string& l = (*lines)[static_cast<size_t>(n) - 1];
  if (l.empty()) return std::nullopt;
  return l;
}

}  // namespace andweorc::compare
