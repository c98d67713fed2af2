// process_section.cc: see process_section.h.
#include "report/process_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "report/display.h"

namespace andweorc::report {

void write_process_section(const profile::Profile& p, std::ostream& out,
                           size_t top, size_t width,
                           const std::string& heading) {
  if (p.processes.size() < 2) return;
  std::vector<const profile::Process*> rows;
  for (const auto& proc : p.processes) rows.push_back(&proc);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    return a->samples > b->samples;
  });
  size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  out << "\n" << heading << "\n";
  // pid, parent, samples, experiments: 34 columns before the name.
  constexpr size_t kFixed = 34;
  size_t name_width = width > kFixed + 8 ? width - kFixed : 8;
  out << fmt::format("  {:>7} {:>7} {:>8} {:>5}  {}\n", "pid", "parent",
                     "samples", "exps", "executable");
  for (size_t i = 0; i < shown; ++i) {
    const profile::Process& proc = *rows[i];
    std::string exe = proc.executable;
    if (size_t slash = exe.rfind('/'); slash != std::string::npos)
      exe = exe.substr(slash + 1);
    std::string experiments =
        proc.experiments < 0 ? "-" : std::to_string(proc.experiments);
    if (!proc.clean_exit) exe += " (killed)";
    out << fmt::format("  {:>7} {:>7} {:>8} {:>5}  {}\n", proc.pid,
                       proc.parent == 0 ? "-" : std::to_string(proc.parent),
                       proc.samples, experiments, fit_right(exe, name_width));
  }
  if (shown < rows.size())
    out << fmt::format("  ... and {} more\n", rows.size() - shown);
}

}  // namespace andweorc::report
