// module_lines.cc: see module_lines.h.
#include "symbols/module_lines.h"

#include <algorithm>
#include <map>
#include <utility>

namespace andweorc::symbols {

ModuleLines in_scope_lines(Module* mod, const ScopeMatcher& scope) {
  ModuleLines out;
  std::map<std::pair<std::string, int>, uint32_t> line_ids;
  std::map<std::string, uint32_t> function_ids;
  const auto text = mod->executable_ranges();
  mod->for_each_line_range([&](std::string_view file, int line, uint64_t lo,
                               uint64_t hi) {
    if (!std::any_of(text.begin(), text.end(),
                     [&](auto& t) { return lo >= t.first && lo < t.second; }))
      return;
    // The first in-scope frame of the inline chain at this address.
    std::vector<Frame> chain = mod->lookup(lo);
    const Frame* chosen = nullptr;
    for (const auto& f : chain) {
      if (f.line > 0 && scope.source_matches(f.file)) {
        chosen = &f;
        break;
      }
    }
    if (chosen == nullptr) {
      // The line table may know a line the inline index does not.
      if (!scope.source_matches(std::string(file))) return;
      static const Frame kNone;
      chosen = &kNone;
    }
    std::string chosen_file =
        chosen->line > 0 ? chosen->file : std::string(file);
    int chosen_line = chosen->line > 0 ? chosen->line : line;
    std::string written_in = chosen->function;
    // The concrete function is the outermost frame of the inline chain.
    std::string concrete = chain.empty() ? written_in : chain.back().function;
    if (written_in.empty()) written_in = concrete;
    auto [l, new_line] = line_ids.try_emplace(
        std::make_pair(chosen_file, chosen_line), uint32_t(out.lines.size()));
    if (new_line)
      out.lines.push_back(
          {std::move(chosen_file), chosen_line, std::move(written_in)});
    auto [f, new_function] =
        function_ids.try_emplace(concrete, uint32_t(out.functions.size()));
    if (new_function) out.functions.push_back(std::move(concrete));
    out.ranges.push_back({lo, hi, l->second, f->second});
  });
  // By address, as the catalog's table wants them (a program with one
  // object in scope then needs no sort in the program).
  std::stable_sort(out.ranges.begin(), out.ranges.end(),
                   [](auto& a, auto& b) { return a.lo < b.lo; });
  return out;
}

}  // namespace andweorc::symbols
