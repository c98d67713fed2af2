// line_catalog.cc: see line_catalog.h.
#include "coordinator/line_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "runtime/shared_tree.h"
#include "symbols/module.h"
#include "symbols/symbolizer.h"

namespace andweorc::coordinator {
namespace {

std::string read_file(const char* path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

std::string self_executable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : "";
}

struct PendingRange {
  uint64_t lo, hi;
  uint32_t line, function;
};

}  // namespace

std::unique_ptr<LineCatalog> LineCatalog::build(
    const symbols::ScopeMatcher& scope, std::vector<std::string>* notes) {
  auto cat = std::unique_ptr<LineCatalog>(new LineCatalog());
  symbols::ProcessMaps maps =
      symbols::ProcessMaps::parse(read_file("/proc/self/maps"));
  std::string exe = self_executable();
  symbols::Symbolizer symbolizer;
  std::map<std::pair<std::string, int>, uint32_t> line_ids;
  std::map<std::string, uint32_t> function_ids;
  std::vector<PendingRange> pending;

  auto function_id = [&](const std::string& name, uint32_t line) {
    auto [it, added] =
        function_ids.try_emplace(name, uint32_t(cat->functions_.size()));
    if (added) cat->functions_.push_back(FunctionInfo{name, line});
    return it->second;
  };

  std::map<std::string, bool> done;
  for (const symbols::Mapping& m : maps.mappings()) {
    if (!m.executable || m.path.empty() || m.path[0] != '/') continue;
    if (!scope.binary_matches(m.path, exe) || done[m.path]) continue;
    done[m.path] = true;
    std::string error;
    symbols::Module* mod = symbolizer.module(m.path, &error);
    if (mod == nullptr) {
      notes->push_back("experiments: cannot read " + m.path + ": " + error);
      continue;
    }
    if (!mod->has_dwarf()) {
      notes->push_back("experiments: " + m.path +
                       " has no debug info, so none of its lines can be "
                       "selected. Fix: rebuild with -g");
      continue;
    }
    // Runtime address = ELF vaddr + bias, from this executable mapping.
    uint64_t vaddr_at_start = 0;
    if (!mod->file_offset_to_vaddr(m.offset, &vaddr_at_start)) continue;
    uint64_t bias = m.start - vaddr_at_start;
    // All executable mappings of this file, in vaddr space.
    std::vector<std::pair<uint64_t, uint64_t>> text;
    for (const symbols::Mapping& other : maps.mappings())
      if (other.executable && other.path == m.path)
        text.emplace_back(other.start - bias, other.end - bias);

    mod->for_each_line_range([&](std::string_view file, int line, uint64_t lo,
                                 uint64_t hi) {
      bool mapped = std::any_of(text.begin(), text.end(), [&](auto& t) {
        return lo >= t.first && lo < t.second;
      });
      if (!mapped) return;
      // The first in-scope frame of the inline chain at this address.
      std::vector<symbols::Frame> chain = mod->lookup(lo);
      const symbols::Frame* chosen = nullptr;
      for (const auto& f : chain) {
        if (f.line > 0 && scope.source_matches(f.file)) {
          chosen = &f;
          break;
        }
      }
      if (chosen == nullptr) {
        // The line table may know a line the inline index does not.
        if (!scope.source_matches(std::string(file))) return;
        static const symbols::Frame kNone;
        chosen = &kNone;
      }
      std::string chosen_file =
          chosen->line > 0 ? chosen->file : std::string(file);
      int chosen_line = chosen->line > 0 ? chosen->line : line;
      std::string written_in = chosen->function;
      // The concrete function is the outermost frame of the inline chain.
      std::string concrete = chain.empty() ? written_in : chain.back().function;
      if (written_in.empty()) written_in = concrete;
      auto key = std::make_pair(chosen_file, chosen_line);
      auto [it, added] =
          line_ids.try_emplace(key, uint32_t(cat->lines_.size()));
      if (added)
        cat->lines_.push_back(LineInfo{chosen_file, chosen_line, written_in});
      pending.push_back(PendingRange{lo + bias, hi + bias, it->second,
                                     function_id(concrete, it->second)});
    });
  }

  // Sort, drop overlaps (first wins), merge neighbours of the same line.
  std::sort(pending.begin(), pending.end(),
            [](auto& a, auto& b) { return a.lo < b.lo; });
  for (const PendingRange& r : pending) {
    uint64_t lo = r.lo;
    if (!cat->ranges_.empty()) {
      auto& last = cat->ranges_.back();
      if (lo < last.hi) lo = last.hi;
      if (lo >= r.hi) continue;
      if (last.hi == lo && last.line == r.line && last.function == r.function) {
        last.hi = r.hi;
        continue;
      }
    }
    cat->ranges_.push_back(runtime::AddressRange{lo, r.hi, r.line, r.function});
  }
  cat->line_samples_.reset(
      new uint64_t[std::max<size_t>(1, cat->lines_.size())]());
  cat->function_samples_.reset(
      new uint64_t[std::max<size_t>(1, cat->functions_.size())]());
  cat->table_ = runtime::AddressTable{
      cat->ranges_.data(),          cat->ranges_.size(),
      cat->line_samples_.get(),     cat->lines_.size(),
      cat->function_samples_.get(), cat->functions_.size()};
  cat->move_to_tree();
  return cat;
}

void LineCatalog::move_to_tree() {
  runtime::TreeSegment* t = runtime::tree();
  if (t == nullptr) return;
  // Whether images exec'd from now on join this coordinator's experiments
  // (shared_tree.h): not when it has nothing to experiment on.
  if (lines_.empty()) {
    __atomic_store_n(&t->coordinator_state, 2u, __ATOMIC_RELEASE);
    return;
  }
  size_t nr = ranges_.size(), nl = std::max<size_t>(1, lines_.size()),
         nf = std::max<size_t>(1, functions_.size());
  auto* table = static_cast<runtime::AddressTable*>(
      runtime::tree_alloc(t, sizeof(runtime::AddressTable)));
  auto* ranges = static_cast<runtime::AddressRange*>(runtime::tree_alloc(
      t, std::max<size_t>(1, nr) * sizeof(runtime::AddressRange)));
  auto* ls = static_cast<uint64_t*>(runtime::tree_alloc(t, nl * 8));
  auto* fs = static_cast<uint64_t*>(runtime::tree_alloc(t, nf * 8));
  if (!table || !ranges || !ls || !fs) {  // arena full: stay private
    __atomic_store_n(&t->coordinator_state, 2u, __ATOMIC_RELEASE);
    return;
  }
  std::copy(ranges_.begin(), ranges_.end(), ranges);
  *table = runtime::AddressTable{ranges,        nr, ls,
                                 lines_.size(), fs, functions_.size()};
  table_ptr_ = table;
  // Exec'd images translate the table object by object (build-id, offset).
  runtime::tree_publish_modules(t, *table);
  __atomic_store_n(&t->coordinator_state, 1u, __ATOMIC_RELEASE);
}

std::vector<uint32_t> LineCatalog::find(const std::string& file,
                                        int line) const {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < lines_.size(); ++i) {
    const LineInfo& l = lines_[i];
    if (l.line != line || l.file.size() < file.size()) continue;
    if (l.file.compare(l.file.size() - file.size(), file.size(), file) != 0)
      continue;
    // Match whole path components: "a.cc" must not match "data.cc".
    size_t start = l.file.size() - file.size();
    if (start == 0 || l.file[start - 1] == '/' || file[0] == '/')
      out.push_back(i);
  }
  return out;
}

}  // namespace andweorc::coordinator
