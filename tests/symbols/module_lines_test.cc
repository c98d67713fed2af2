// module_lines_test.cc: a file's in-scope lines (what the line catalog is
// made of) and its build-id.
#include "symbols/module_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fixture_util.h"

namespace andweorc::symbols {
namespace {

using testing::basename_of;
using testing::fixture_path;
using testing::marker_line;
using testing::run_command;

std::unique_ptr<Module> open_fixture(const std::string& name) {
  std::string error;
  auto mod = Module::open(fixture_path(name), "", &error);
  EXPECT_NE(mod, nullptr) << error;
  return mod;
}

TEST(ModuleLines, InlinedSystemCodeCountsForTheCallingLine) {
  auto mod = open_fixture("fx_dwarf5_o2");
  ASSERT_NE(mod, nullptr);
  ScopeMatcher scope(default_binary_scope(), default_source_scope());
  ModuleLines m = in_scope_lines(mod.get(), scope);
  ASSERT_FALSE(m.lines.empty());
  ASSERT_FALSE(m.ranges.empty());
  std::set<int> main_lines;
  for (const auto& l : m.lines) {
    EXPECT_TRUE(scope.source_matches(l.file)) << l.file;
    EXPECT_GT(l.line, 0);
    if (basename_of(l.file) == "fixture_main.cc") main_lines.insert(l.line);
  }
  // The inlined leaf's line is its own (in scope), not its caller's.
  EXPECT_TRUE(main_lines.count(marker_line(FIXTURE_MAIN_SRC, "leaf_inline")));
  EXPECT_TRUE(main_lines.count(marker_line(FIXTURE_MAIN_SRC, "plain")));
  auto text = mod->executable_ranges();
  ASSERT_FALSE(text.empty());
  for (const auto& r : m.ranges) {
    ASSERT_LT(r.line, m.lines.size());
    ASSERT_LT(r.function, m.functions.size());
    EXPECT_LT(r.lo, r.hi);
    EXPECT_TRUE(std::any_of(text.begin(), text.end(), [&](auto& t) {
      return r.lo >= t.first && r.lo < t.second;
    }));
  }
  // Every line and function is used by some range.
  std::vector<bool> line_used(m.lines.size()),
      function_used(m.functions.size());
  for (const auto& r : m.ranges)
    line_used[r.line] = function_used[r.function] = true;
  EXPECT_EQ(std::count(line_used.begin(), line_used.end(), false), 0);
  EXPECT_EQ(std::count(function_used.begin(), function_used.end(), false), 0);
}

TEST(ModuleLines, ASourceScopeThatExcludesEverythingLeavesNothing) {
  auto mod = open_fixture("fx_dwarf5_pie");
  ASSERT_NE(mod, nullptr);
  ScopeMatcher scope(default_binary_scope(), {"*/no-such-dir/*"});
  ModuleLines m = in_scope_lines(mod.get(), scope);
  EXPECT_TRUE(m.lines.empty());
  EXPECT_TRUE(m.ranges.empty());
}

TEST(Module, BuildIdIsTheOneReadelfShows) {
  std::string path = fixture_path("fx_dwarf5_pie");
  auto mod = open_fixture("fx_dwarf5_pie");
  ASSERT_NE(mod, nullptr);
  std::string out = run_command("readelf -n '" + path + "' 2>/dev/null");
  size_t at = out.find("Build ID: ");
  if (at == std::string::npos) GTEST_SKIP() << "fixture has no build-id";
  std::string expected = out.substr(at + 10, out.find('\n', at) - at - 10);
  EXPECT_EQ(mod->build_id(), expected);
  EXPECT_EQ(mod->build_id().size(), 40u);  // SHA-1, GNU ld's default
}

}  // namespace
}  // namespace andweorc::symbols
