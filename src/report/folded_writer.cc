// folded_writer.cc: see folded_writer.h.
#include "report/folded_writer.h"

#include <map>
#include <string>

#include "report/frame_name.h"

namespace andweorc::report {
namespace {

std::string folded_name(std::string name) {
  for (char& c : name)
    if (c == ';' || c == '\n') c = ':';
  return name;
}

}  // namespace

void write_folded(const profile::Profile& p, std::ostream& out) {
  std::map<std::string, uint64_t> lines;
  for (const profile::Stack& s : p.stacks) {
    if (s.samples == 0) continue;
    std::string line;
    auto add = [&](const std::string& name) {
      if (!line.empty()) line += ';';
      line += folded_name(name);
    };
    // Labels are stored innermost first; the root side gets the outermost.
    for (auto l = s.labels.rbegin(); l != s.labels.rend(); ++l)
      add(label_frame_name(p.labels[*l]));
    if (s.frames.empty()) add("[unknown]");
    for (auto f = s.frames.rbegin(); f != s.frames.rend(); ++f)
      add(frame_name(p.frames[*f]));
    lines[line] += s.samples;
  }
  for (const auto& [line, count] : lines) out << line << ' ' << count << '\n';
}

}  // namespace andweorc::report
