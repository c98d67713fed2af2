// line_catalog.cc: see line_catalog.h.
#include "coordinator/line_catalog.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <unordered_map>

#include "runtime/shared_tree.h"
#include "runtime/signal_safe.h"
#include "symbols/line_cache.h"
#include "symbols/module.h"
#include "symbols/module_lines.h"
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

// Where build_from_files places its files (see there): 16 TiB up, 1 TiB
// apart.
constexpr uint64_t kOfflineBase = uint64_t(1) << 44;
constexpr uint64_t kOfflineStride = uint64_t(1) << 40;

// The module of `path`, or nullptr with a note saying why its lines cannot
// be selected.
symbols::Module* readable_module(symbols::Symbolizer* symbolizer,
                                 const std::string& path,
                                 std::vector<std::string>* notes) {
  std::string error;
  symbols::Module* mod = symbolizer->module(path, &error);
  if (mod == nullptr) {
    notes->push_back("experiments: cannot read " + path + ": " + error);
    return nullptr;
  }
  if (!mod->has_dwarf()) {
    notes->push_back("experiments: " + path +
                     " has no debug info, so none of its lines can be "
                     "selected. Fix: rebuild with -g");
    return nullptr;
  }
  return mod;
}

// The in-scope lines of `mod`: from the line cache in `cache_dir` when it
// has them, else from its DWARF, then saved there for the next run (best
// effort: a cache that cannot be written costs the next run the DWARF
// again, nothing else).
symbols::ModuleLines lines_of(symbols::Module* mod,
                              const symbols::ScopeMatcher& scope,
                              const std::string& cache_dir) {
  std::string path =
      symbols::line_cache_path(cache_dir, mod->build_id(), scope);
  symbols::ModuleLines lines;
  std::string error;
  if (!path.empty() && symbols::read_line_cache(path, &lines, &error))
    return lines;
  lines = symbols::in_scope_lines(mod, scope);
  if (!path.empty()) symbols::write_line_cache(path, lines, &error);
  return lines;
}

}  // namespace

struct LineCatalog::PendingRange {
  uint64_t lo, hi;
  uint32_t line, function;
};

// Accumulates the lines, functions and ranges of the objects added, then
// turns them into the catalog's table.
class LineCatalog::Builder {
 public:
  explicit Builder(LineCatalog* cat) : cat_(cat) {}

  // One object's lines placed at `bias` (runtime address = ELF vaddr +
  // bias). A line or function in several objects (a header inlined into a
  // program and its library) is one line of the catalog.
  void add(symbols::ModuleLines&& m, uint64_t bias) {
    cat_->lines_.reserve(cat_->lines_.size() + m.lines.size());
    pending_.reserve(pending_.size() + m.ranges.size());
    line_ids_.reserve(line_ids_.size() + m.lines.size());
    std::vector<uint32_t> line_id(m.lines.size(), kUnset);
    std::vector<uint32_t> function_id(m.functions.size(), kUnset);
    for (const auto& r : m.ranges) {
      uint32_t& l = line_id[r.line];
      if (l == kUnset) {
        auto& info = m.lines[r.line];
        auto [it, added] = line_ids_.try_emplace(LineKey{info.file, info.line},
                                                 uint32_t(cat_->lines_.size()));
        if (added)  // each line is looked at once: its strings can move
          cat_->lines_.push_back(LineInfo{std::move(info.file), info.line,
                                          std::move(info.function)});
        l = it->second;
      }
      uint32_t& f = function_id[r.function];
      if (f == kUnset) {
        // A function's first line is the first line of its first range.
        auto [it, added] = function_ids_.try_emplace(
            m.functions[r.function], uint32_t(cat_->functions_.size()));
        if (added)
          cat_->functions_.push_back(FunctionInfo{m.functions[r.function], l});
        f = it->second;
      }
      pending_.push_back(PendingRange{r.lo + bias, r.hi + bias, l, f});
    }
  }

  // Sort, drop overlaps (first wins), merge neighbours of the same line.
  void finish(uint32_t generation) {
    // Each object's ranges come sorted: one object in scope needs no sort.
    auto by_lo = [](auto& a, auto& b) { return a.lo < b.lo; };
    if (!std::is_sorted(pending_.begin(), pending_.end(), by_lo))
      std::stable_sort(pending_.begin(), pending_.end(), by_lo);
    auto& ranges = cat_->ranges_;
    for (const PendingRange& r : pending_) {
      uint64_t lo = r.lo;
      if (!ranges.empty()) {
        auto& last = ranges.back();
        if (lo < last.hi) lo = last.hi;
        if (lo >= r.hi) continue;
        if (last.hi == lo && last.line == r.line &&
            last.function == r.function) {
          last.hi = r.hi;
          continue;
        }
      }
      ranges.push_back(runtime::AddressRange{lo, r.hi, r.line, r.function});
    }
    cat_->line_samples_.reset(
        new uint64_t[std::max<size_t>(1, cat_->lines_.size())]());
    cat_->function_samples_.reset(
        new uint64_t[std::max<size_t>(1, cat_->functions_.size())]());
    cat_->table_ = runtime::AddressTable{cat_->ranges_.data(),
                                         cat_->ranges_.size(),
                                         cat_->line_samples_.get(),
                                         cat_->lines_.size(),
                                         cat_->function_samples_.get(),
                                         cat_->functions_.size(),
                                         generation};
  }

 private:
  static constexpr uint32_t kUnset = ~uint32_t(0);
  struct LineKey {
    std::string file;
    int line;
    bool operator==(const LineKey&) const = default;
  };
  struct LineKeyHash {
    size_t operator()(const LineKey& k) const {
      return std::hash<std::string>()(k.file) * 31 + size_t(k.line);
    }
  };

  LineCatalog* cat_;
  std::unordered_map<LineKey, uint32_t, LineKeyHash> line_ids_;
  std::unordered_map<std::string, uint32_t> function_ids_;
  std::vector<PendingRange> pending_;
};

std::unique_ptr<LineCatalog> LineCatalog::build(
    const symbols::ScopeMatcher& scope, const std::string& line_cache,
    std::vector<std::string>* notes) {
  auto cat = std::unique_ptr<LineCatalog>(new LineCatalog());
  symbols::ProcessMaps maps =
      symbols::ProcessMaps::parse(read_file("/proc/self/maps"));
  std::string exe = self_executable();
  symbols::Symbolizer symbolizer;
  Builder builder(cat.get());
  std::map<std::string, bool> done;
  for (const symbols::Mapping& m : maps.mappings()) {
    if (!m.executable || m.path.empty() || m.path[0] != '/') continue;
    if (!scope.binary_matches(m.path, exe) || done[m.path]) continue;
    done[m.path] = true;
    symbols::Module* mod = readable_module(&symbolizer, m.path, notes);
    if (mod == nullptr) continue;
    // Runtime address = ELF vaddr + bias, from this executable mapping.
    uint64_t vaddr_at_start = 0;
    if (!mod->file_offset_to_vaddr(m.offset, &vaddr_at_start)) continue;
    builder.add(lines_of(mod, scope, line_cache), m.start - vaddr_at_start);
  }
  builder.finish(0);
  cat->move_to_tree();
  return cat;
}

std::unique_ptr<LineCatalog> LineCatalog::build_from_files(
    const symbols::ScopeMatcher& scope, const std::vector<std::string>& paths,
    uint32_t generation, symbols::Symbolizer* symbolizer,
    const std::string& line_cache, std::vector<std::string>* notes) {
  auto cat = std::unique_ptr<LineCatalog>(new LineCatalog());
  Builder builder(cat.get());
  std::vector<runtime::TreeModule> modules;
  for (size_t k = 0; k < paths.size(); ++k) {
    // MAIN is each process's main executable: each of these is one.
    if (!scope.binary_matches(paths[k], paths[k])) continue;
    symbols::Module* mod = readable_module(symbolizer, paths[k], notes);
    if (mod == nullptr) continue;
    // Each file at a bias of its own, far above where Linux maps anything
    // in this process by default (a 47-bit user space; mmap hands out
    // addresses from below the stack, the program from 0x55..): a sample of
    // this process never falls in them, and exec'd images translate them
    // object by object (shared_tree.h, TreeModule).
    uint64_t bias = kOfflineBase + k * kOfflineStride;
    runtime::TreeModule m{};
    if (!runtime::tree_module_of_file(paths[k].c_str(), bias, &m)) {
      notes->push_back("experiments: " + paths[k] +
                       " has no GNU build-id, so its lines cannot be "
                       "matched in the processes that run it");
      continue;
    }
    builder.add(lines_of(mod, scope, line_cache), bias);
    modules.push_back(m);
  }
  builder.finish(generation);
  cat->move_to_tree(&modules);
  cat->modules_ = std::move(modules);
  return cat;
}

void LineCatalog::move_to_tree(
    const std::vector<runtime::TreeModule>* modules) {
  runtime::TreeSegment* t = runtime::tree();
  if (t == nullptr) return;
  // Whether images exec'd from now on join this coordinator's experiments
  // (shared_tree.h): not when it has nothing to experiment on. (A tree
  // whose first process has no code is the coordinator's to say: state 3.)
  if (lines_.empty()) {
    // The first process of the tree (a shell, a launcher): its coordinator
    // runs the experiments of the programs it starts, which join and say
    // what they run (coordinator.cc). An exec'd image, or a catalog of
    // those programs that holds nothing, changes nothing.
    if (modules == nullptr && !runtime::tree_joined_by_exec())
      __atomic_store_n(&t->coordinator_state, 3u, __ATOMIC_RELEASE);
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
  *table = runtime::AddressTable{
      ranges, nr, ls, lines_.size(), fs, functions_.size(), table_.generation};
  table_ptr_ = table;
  if (modules != nullptr) return;  // published with the table (publish())
  // Exec'd images translate the table object by object (build-id, offset).
  runtime::tree_publish_modules(t, *table);
  __atomic_store_n(&t->coordinator_state, 1u, __ATOMIC_RELEASE);
}

void LineCatalog::publish_generation() const {
  runtime::TreeSegment* t = runtime::tree();
  if (t == nullptr || !runtime::tree_holds(t, table_ptr_, sizeof *table_ptr_))
    return;
  // A sequence word: odd while the table and its modules change, so that an
  // image never translates one generation's table by another's modules.
  __atomic_add_fetch(&t->table_generation, 1u, __ATOMIC_ACQ_REL);
  runtime::tree_publish_module_list(t, modules_.data(),
                                    uint32_t(modules_.size()));
  runtime::publish_address_table(table_ptr_);
  __atomic_add_fetch(&t->table_generation, 1u, __ATOMIC_RELEASE);
  // Every image's follower sleeps on the word (shared_tree_follow.cc).
  runtime::futex_wake_all(&t->table_generation, /*shared=*/true);
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
