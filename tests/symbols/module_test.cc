// module_test.cc: Module on its own: eager loading, line ranges, offsets,
// and the demangler.
#include "symbols/module.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fixture_util.h"
#include "symbols/demangle.h"

namespace andweorc::symbols {
namespace {

namespace fs = std::filesystem;
using testing::basename_of;
using testing::fixture_path;
using testing::marker_line;

TEST(Demangle, ItaniumNamesAndPassThrough) {
  EXPECT_EQ(demangle("_ZN7fixture14plain_functionEi"),
            "fixture::plain_function(int)");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle(""), "");
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle("_Zjunk!"), "_Zjunk!");
}

TEST(Module, LoadAllBuildsEveryIndexAndMatchesLazyLookups) {
  std::string path = fixture_path("fx_dwarf5_o2");
  std::string error;
  auto lazy = Module::open(path, "", &error);
  auto eager = Module::open(path, "", &error);
  ASSERT_NE(lazy, nullptr) << error;
  ASSERT_NE(eager, nullptr) << error;
  EXPECT_TRUE(eager->has_dwarf());
  eager->load_all();
  Module::Stats s = eager->stats();
  EXPECT_GT(s.compile_units, 0u);
  EXPECT_EQ(s.indexed_units, s.compile_units);
  EXPECT_GT(s.inline_entries, 5u);

  size_t ranges = 0;
  eager->for_each_line_range(
      [&](std::string_view, int line, uint64_t lo, uint64_t hi) {
        EXPECT_GT(line, 0);
        EXPECT_LT(lo, hi);
        ++ranges;
        auto a = lazy->lookup(lo);
        auto b = eager->lookup(lo);
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
          EXPECT_EQ(a[i].function, b[i].function);
          EXPECT_EQ(a[i].line, b[i].line);
          EXPECT_EQ(a[i].file, b[i].file);
        }
        // The line table's own answer for the range start is its line.
        EXPECT_EQ(b[0].line, line);
      });
  EXPECT_GT(ranges, 10u);
}

TEST(Module, LineRangesContainTheMarkedInstruction) {
  std::string path = fs::canonical(fixture_path("fx_dwarf5_pie")).string();
  auto run = testing::run_fixture(path);
  ASSERT_TRUE(run.ok);
  Symbolizer sym;
  Location loc = sym.symbolize(ProcessMaps::parse(run.maps_text),
                               run.addrs["plain"], false);
  Module* mod = sym.module(path);
  ASSERT_NE(mod, nullptr);
  int want = marker_line(FIXTURE_MAIN_SRC, "plain");
  bool found = false;
  mod->for_each_line_range([&](std::string_view file, int line, uint64_t lo,
                               uint64_t hi) {
    if (line == want && basename_of(std::string(file)) == "fixture_main.cc" &&
        lo <= loc.module_vaddr && loc.module_vaddr < hi) {
      found = true;
    }
  });
  EXPECT_TRUE(found);
}

TEST(Module, FileOffsetsMapThroughLoadSegments) {
  std::string error;
  auto mod = Module::open(fixture_path("fx_dwarf5_nopie"), "", &error);
  ASSERT_NE(mod, nullptr) << error;
  uint64_t vaddr = 0;
  // Non-PIE x86-64 programs load the first segment (file offset 0) at
  // 0x400000.
  ASSERT_TRUE(mod->file_offset_to_vaddr(0, &vaddr));
  EXPECT_EQ(vaddr, 0x400000u);
  EXPECT_FALSE(mod->file_offset_to_vaddr(uint64_t{1} << 40, &vaddr));

  auto pie = Module::open(fixture_path("fx_dwarf5_pie"), "", &error);
  ASSERT_NE(pie, nullptr) << error;
  ASSERT_TRUE(pie->file_offset_to_vaddr(0x10, &vaddr));
  EXPECT_EQ(vaddr, 0x10u);
}

TEST(Module, OpenReportsErrors) {
  std::string error;
  EXPECT_EQ(Module::open("/nonexistent", "", &error), nullptr);
  EXPECT_NE(error.find("No such file"), std::string::npos);
  EXPECT_EQ(Module::open("/", "", nullptr), nullptr);
  EXPECT_EQ(Module::open(FIXTURE_MAIN_SRC, "", &error), nullptr);
  EXPECT_NE(error, "");
}

}  // namespace
}  // namespace andweorc::symbols
