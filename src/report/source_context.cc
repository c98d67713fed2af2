// source_context.cc: reads the source lines the HTML report shows.
#include "report/source_context.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "report/source_finder.h"

namespace andweorc::report {
namespace {

// A file's first lines, or why they could not be read.
struct FileLines {
  std::vector<std::string> lines;
  std::string found_as;
  std::string error;
};

std::string shorten(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() <= kMaxSourceLineBytes) return line;
  size_t cut = kMaxSourceLineBytes;
  // Never split a UTF-8 sequence: back off over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  line.resize(cut);
  return line + "...";
}

FileLines read_lines(const std::string& file, int last_line,
                     const std::vector<std::string>& roots) {
  FileLines f;
  if (file.empty()) {
    f.error = "no source file is known for this line";
    return f;
  }
  std::string path = locate_source(file, roots);
  if (path.empty()) {
    struct stat st;
    f.error = stat(file.c_str(), &st) == 0
                  ? "source not readable here: not a regular file"
                  : std::string("source not readable here: ") + strerror(errno);
    return f;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    f.error = std::string("source not readable here: ") + strerror(errno);
    return f;
  }
  if (path != file) f.found_as = path;
  std::string line;
  while (static_cast<int>(f.lines.size()) < last_line &&
         std::getline(in, line)) {
    f.lines.push_back(shorten(std::move(line)));
  }
  return f;
}

}  // namespace

std::vector<SourceContext> read_source_contexts(
    const std::vector<SourceRequest>& requests, int radius,
    const std::vector<std::string>& roots) {
  radius = std::max(radius, 0);
  std::map<std::string, int> last_line;
  for (const SourceRequest& r : requests) {
    int& last = last_line[r.file];
    last = std::max(last, r.line + radius);
  }
  std::map<std::string, FileLines> files;
  for (const auto& [file, last] : last_line) {
    files.emplace(file, read_lines(file, last, roots));
  }
  std::vector<SourceContext> out;
  for (const SourceRequest& r : requests) {
    SourceContext c;
    c.file = r.file;
    c.line = r.line;
    const FileLines& f = files.at(r.file);
    c.found_as = f.found_as;
    int count = static_cast<int>(f.lines.size());
    if (!f.error.empty()) {
      c.error = f.error;
    } else if (r.line <= 0) {
      c.error = "no source line is known";
    } else if (r.line > count) {
      c.error = "the file has only " + std::to_string(count) +
                " lines (edited since the run?)";
    } else {
      c.first_line = std::max(1, r.line - radius);
      int last = std::min(count, r.line + radius);
      c.lines.assign(f.lines.begin() + (c.first_line - 1),
                     f.lines.begin() + last);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace andweorc::report
