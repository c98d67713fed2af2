// line_catalog.h: the in-scope source lines of the running process and the
// address table the signal handler uses to attribute samples to them.
//
// Built once, in the coordinator thread, from /proc/self/maps and each
// in-scope object's lines (symbols/module_lines.h: from DWARF, or from the
// line cache `andweorc run` fills before the program starts). Every code range
// of an in-scope binary maps to the first in-scope frame of its inline chain:
// code inlined from a system header into your function counts for the line in
// your function that called it. The published runtime::AddressTable is
// immutable and lives until exit.
#ifndef ANDWEORC_COORDINATOR_LINE_CATALOG_H_
#define ANDWEORC_COORDINATOR_LINE_CATALOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/address_table.h"
#include "runtime/shared_tree.h"
#include "symbols/scope.h"
#include "symbols/symbolizer.h"

namespace andweorc::coordinator {

struct LineInfo {
  std::string file;
  int line = 0;
  std::string function;  // the function the line is written in
};

// A concrete function: its own code and all code inlined into it.
struct FunctionInfo {
  std::string name;
  uint32_t first_line = 0;  // a line id inside it, for reports
};

class LineCatalog {
 public:
  // Reads the live process. `line_cache`: the directory of the line cache
  // (symbols/line_cache.h; "" for none), read instead of an object's DWARF
  // when it has the object's lines. `notes` receives sentences for the
  // report (e.g. modules without debug info).
  static std::unique_ptr<LineCatalog> build(const symbols::ScopeMatcher& scope,
                                            const std::string& line_cache,
                                            std::vector<std::string>* notes);

  // A tree whose first process has no in-scope code (a shell: shared_tree.h,
  // coordinator_state 3): the catalog of the executables the tree's exec'd
  // images run, read from their files, each placed at an address of its own
  // that no sample of this process can have. The table, in the tree's arena,
  // carries `generation`; publish_generation() makes it the tree's.
  static std::unique_ptr<LineCatalog> build_from_files(
      const symbols::ScopeMatcher& scope, const std::vector<std::string>& paths,
      uint32_t generation, symbols::Symbolizer* symbolizer,
      const std::string& line_cache, std::vector<std::string>* notes);
  // Publishes a build_from_files table and its objects to the tree (the
  // exec'd images translate it). Does nothing without a tree or when the
  // table could not be put in its arena.
  void publish_generation() const;

  // In a process tree (runtime/shared_tree.h) the table and its sample
  // counts live in the tree's shared arena: fork children see it (even those
  // forked before it was built) and their samples count in it.
  const runtime::AddressTable* table() const { return table_ptr_; }
  size_t size() const { return lines_.size(); }
  const LineInfo& line(uint32_t id) const { return lines_[id]; }
  const FunctionInfo& function(uint32_t id) const { return functions_[id]; }
  size_t function_count() const { return functions_.size(); }
  // Samples attributed so far (the handler counts them).
  uint64_t line_samples(uint32_t id) const {
    return __atomic_load_n(&table_ptr_->line_samples[id], __ATOMIC_RELAXED);
  }
  uint64_t function_samples(uint32_t id) const {
    return __atomic_load_n(&table_ptr_->function_samples[id], __ATOMIC_RELAXED);
  }
  // Lines whose file ends with `file` (at a path component) and number is
  // `line`.
  std::vector<uint32_t> find(const std::string& file, int line) const;

 private:
  std::vector<LineInfo> lines_;
  std::vector<FunctionInfo> functions_;
  // Storage behind table_; never freed while the process runs.
  std::vector<runtime::AddressRange> ranges_;
  std::unique_ptr<uint64_t[]> line_samples_;
  std::unique_ptr<uint64_t[]> function_samples_;
  runtime::AddressTable table_;
  // &table_, or its copy in the tree's arena (move_to_tree).
  const runtime::AddressTable* table_ptr_ = &table_;
  // build_from_files: the objects its table covers, at their biases.
  std::vector<runtime::TreeModule> modules_;
  // Copies the table into the process tree's arena when there is one (all or
  // nothing: a table half in private memory would be garbage in a child).
  // `modules`: a build_from_files table (published by publish_generation,
  // not here).
  void move_to_tree(const std::vector<runtime::TreeModule>* modules = nullptr);
  struct PendingRange;
  class Builder;
};

}  // namespace andweorc::coordinator

#endif  // ANDWEORC_COORDINATOR_LINE_CATALOG_H_
