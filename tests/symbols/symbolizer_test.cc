// symbolizer_test.cc: end-to-end symbolization of real runtime addresses from
// fixture programs built with known flags (DWARF 4/5, PIE/non-PIE, -O2,
// clang, separate debug info, shared library, no DWARF) and bad inputs.
#include "symbols/symbolizer.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "fixture_util.h"
#include "symbols/module.h"

namespace andweorc::symbols {
namespace {

namespace fs = std::filesystem;
using testing::basename_of;
using testing::fixture_path;
using testing::FixtureRun;
using testing::marker_line;
using testing::run_fixture;

int main_line(const char* marker) {
  int line = marker_line(FIXTURE_MAIN_SRC, marker);
  EXPECT_GT(line, 0) << marker;
  return line;
}

std::string describe(const Location& loc) {
  std::ostringstream out;
  out << "module=" << loc.module << " vaddr=0x" << std::hex << loc.module_vaddr
      << std::dec;
  for (const Frame& f : loc.frames) {
    out << "\n  " << (f.function.empty() ? "??" : f.function) << " @ " << f.file
        << ":" << f.line << (f.inlined ? " (inlined)" : "");
  }
  return out.str();
}

// A fresh directory under the test's temp dir.
fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("andweorc_symbols_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Same maps text with every occurrence of one path replaced.
std::string replace_path(std::string text, const std::string& from,
                         const std::string& to) {
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos;
       pos += to.size()) {
    text.replace(pos, from.size(), to);
  }
  return text;
}

// ---- The same program under different compilers and flags ----------------

class FixtureTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    path_ = fs::canonical(fixture_path(GetParam())).string();
    run_ = run_fixture(path_);
    ASSERT_TRUE(run_.ok) << "fixture did not run: " << path_;
    maps_ = ProcessMaps::parse(run_.maps_text);
  }
  Location at(const std::string& name, bool is_return = false) {
    EXPECT_EQ(run_.addrs.count(name), 1u) << name;
    return sym_.symbolize(maps_, run_.addrs[name], is_return);
  }
  std::string path_;
  FixtureRun run_;
  ProcessMaps maps_;
  Symbolizer sym_;
};

TEST_P(FixtureTest, InlineChainInnermostFirst) {
  Location loc = at("leaf_inline");
  SCOPED_TRACE(describe(loc));
  EXPECT_EQ(loc.module, path_);
  ASSERT_EQ(loc.frames.size(), 3u);
  const Frame& leaf = loc.frames[0];
  EXPECT_NE(leaf.function.find("leaf_inline"), std::string::npos);
  EXPECT_EQ(basename_of(leaf.file), "fixture_main.cc");
  EXPECT_EQ(leaf.line, main_line("leaf_inline"));
  EXPECT_TRUE(leaf.inlined);

  const Frame& mid = loc.frames[1];
  EXPECT_NE(mid.function.find("mid_inline"), std::string::npos);
  EXPECT_EQ(basename_of(mid.file), "fixture_main.cc");
  EXPECT_EQ(mid.line, main_line("mid_calls_leaf"));
  EXPECT_TRUE(mid.inlined);

  const Frame& outer = loc.frames[2];
  EXPECT_EQ(outer.function, "fixture::outer_function()");
  EXPECT_EQ(basename_of(outer.file), "fixture_main.cc");
  EXPECT_EQ(outer.line, main_line("outer_calls_mid"));
  EXPECT_FALSE(outer.inlined);
  EXPECT_TRUE(loc.has_line());
}

TEST_P(FixtureTest, PlainAndTemplateFunctions) {
  Location plain = at("plain");
  SCOPED_TRACE(describe(plain));
  ASSERT_EQ(plain.frames.size(), 1u);
  EXPECT_EQ(plain.frames[0].function, "fixture::plain_function(int)");
  EXPECT_EQ(basename_of(plain.frames[0].file), "fixture_main.cc");
  EXPECT_EQ(plain.frames[0].line, main_line("plain"));
  EXPECT_FALSE(plain.frames[0].inlined);

  Location tmpl = at("templated");
  SCOPED_TRACE(describe(tmpl));
  ASSERT_EQ(tmpl.frames.size(), 1u);
  EXPECT_EQ(tmpl.frames[0].function, "void* fixture::templated<int>(int)");
  EXPECT_EQ(tmpl.frames[0].line, main_line("templated"));

  Location entry = at("plain_entry");
  SCOPED_TRACE(describe(entry));
  EXPECT_EQ(entry.frames.back().function, "fixture::plain_function(int)");
}

TEST_P(FixtureTest, ReturnAddressLooksUpTheCall) {
  Location caller = at("return_address", /*is_return=*/true);
  SCOPED_TRACE(describe(caller));
  ASSERT_EQ(caller.frames.size(), 1u);
  EXPECT_EQ(caller.frames[0].function, "fixture::return_address_caller()");
  EXPECT_EQ(caller.frames[0].line, main_line("ra_call"));

  // The call is the caller's last instruction, so the unadjusted return
  // address is already outside it.
  Location raw = at("return_address", /*is_return=*/false);
  SCOPED_TRACE(describe(raw));
  EXPECT_EQ(raw.module_vaddr, caller.module_vaddr + 1);
  EXPECT_NE(raw.frames[0].function, "fixture::return_address_caller()");
}

TEST_P(FixtureTest, RepeatedLookupsAreCachedAndEqual) {
  Location a = at("leaf_inline");
  Location b = at("leaf_inline");
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (size_t i = 0; i < a.frames.size(); ++i) {
    EXPECT_EQ(a.frames[i].function, b.frames[i].function);
    EXPECT_EQ(a.frames[i].line, b.frames[i].line);
  }
  auto seen = sym_.modules_seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, path_);
  EXPECT_TRUE(seen[0].opened);
  EXPECT_TRUE(seen[0].has_dwarf);
  EXPECT_EQ(seen[0].error, "");
}

// Every line-table address of the fixture, checked frame by frame against
// elfutils' own addr2line (which uses dwarf_getscopes).
TEST_P(FixtureTest, AgreesWithEuAddr2line) {
  std::string eu = EU_ADDR2LINE;
  if (eu.empty()) GTEST_SKIP() << "eu-addr2line not installed";
  // eu-addr2line 0.188 finds CUs only through .debug_aranges, which clang
  // does not emit (it answers "??:0"); our own CU table does not need them.
  if (std::string(GetParam()) == "fx_clang") {
    GTEST_SKIP() << "eu-addr2line cannot read clang's CUs without aranges";
  }
  // With split DWARF, eu-addr2line 0.188 reports no inline frames.
  if (std::string(GetParam()) == "fx_split") {
    GTEST_SKIP() << "eu-addr2line does not read inline chains from .dwo";
  }
  Module* mod = sym_.module(path_);
  ASSERT_NE(mod, nullptr);
  std::vector<uint64_t> addrs;
  mod->for_each_line_range(
      [&](std::string_view file, int, uint64_t lo, uint64_t hi) {
        if (basename_of(std::string(file)) != "fixture_main.cc") return;
        addrs.push_back(lo);
        if (hi - lo > 1) addrs.push_back(hi - 1);
      });
  ASSERT_GT(addrs.size(), 20u);
  std::ostringstream cmd;
  cmd << eu << " -i -f -C -e '" << path_ << "'";
  for (uint64_t a : addrs) cmd << " 0x" << std::hex << a;
  std::istringstream out(testing::run_command(cmd.str()));

  // eu-addr2line prints, per address, a function line and a file:line:col
  // line for each frame; frames of one address are not delimited, so walk
  // our frames and read as many pairs.
  size_t compared = 0;
  for (uint64_t a : addrs) {
    std::vector<Frame> frames = mod->lookup(a);
    for (const Frame& f : frames) {
      std::string fn, where;
      ASSERT_TRUE(std::getline(out, fn) && std::getline(out, where))
          << "eu-addr2line output ended early";
      fn = fn.substr(0, fn.find(" inlined at "));
      SCOPED_TRACE(::testing::Message()
                   << "address 0x" << std::hex << a << std::dec
                   << ": eu-addr2line says " << fn << " @ " << where
                   << ", we say " << f.function << " @ " << f.file << ":"
                   << f.line);
      if (fn == "??") {  // e.g. alignment padding after a function
        EXPECT_EQ(f.function, "");
      } else {
        EXPECT_NE(f.function.find(fn), std::string::npos);
      }
      size_t colon = where.find(':');
      ASSERT_NE(colon, std::string::npos);
      EXPECT_EQ(basename_of(where.substr(0, colon)), basename_of(f.file));
      EXPECT_EQ(std::atoi(where.c_str() + colon + 1), f.line);
      ++compared;
    }
  }
  std::string rest;
  EXPECT_FALSE(std::getline(out, rest)) << "eu-addr2line has more frames";
  EXPECT_GT(compared, addrs.size());
}

std::vector<const char*> fixture_names() {
  std::vector<const char*> names = {
      "fx_dwarf5_pie", "fx_dwarf4_pie", "fx_dwarf5_nopie", "fx_dwarf4_nopie",
      "fx_dwarf5_o2",  "fx_debuglink",  "fx_dwarf5_gz",    "fx_split"};
  if (HAVE_CLANG_FIXTURE) names.push_back("fx_clang");
  return names;
}

INSTANTIATE_TEST_SUITE_P(Builds, FixtureTest,
                         ::testing::ValuesIn(fixture_names()),
                         [](const auto& info) {
                           return std::string(info.param).substr(3);
                         });

// ---- Specific layouts -----------------------------------------------------

TEST(Symbolizer, NonPieRuntimeAddressIsTheElfVaddr) {
  std::string path = fs::canonical(fixture_path("fx_dwarf5_nopie")).string();
  FixtureRun run = run_fixture(path);
  ASSERT_TRUE(run.ok);
  Symbolizer sym;
  Location loc = sym.symbolize(ProcessMaps::parse(run.maps_text),
                               run.addrs["plain"], false);
  EXPECT_EQ(loc.module_vaddr, run.addrs["plain"]);
}

TEST(Symbolizer, SharedLibrary) {
  std::string path = fs::canonical(fixture_path("fx_shlib")).string();
  std::string lib = fs::canonical(fixture_path("libfx_lib.so")).string();
  FixtureRun run = run_fixture(path);
  ASSERT_TRUE(run.ok);
  ProcessMaps maps = ProcessMaps::parse(run.maps_text);
  Symbolizer sym;

  Location loc = sym.symbolize(maps, run.addrs["shlib"], false);
  SCOPED_TRACE(describe(loc));
  EXPECT_EQ(loc.module, lib);
  ASSERT_EQ(loc.frames.size(), 2u);
  EXPECT_NE(loc.frames[0].function.find("lib_leaf"), std::string::npos);
  EXPECT_EQ(basename_of(loc.frames[0].file), "fixture_lib.cc");
  EXPECT_EQ(loc.frames[0].line, marker_line(FIXTURE_LIB_SRC, "lib_leaf"));
  EXPECT_TRUE(loc.frames[0].inlined);
  EXPECT_EQ(loc.frames[1].function, "shlib_here");
  EXPECT_EQ(loc.frames[1].line, marker_line(FIXTURE_LIB_SRC, "lib_calls_leaf"));
  EXPECT_FALSE(loc.frames[1].inlined);

  // The program itself still resolves alongside the library.
  Location main_loc = sym.symbolize(maps, run.addrs["plain"], false);
  EXPECT_EQ(main_loc.module, path);
  EXPECT_EQ(main_loc.frames[0].line, main_line("plain"));

  // libc is symbolized from its symbol table at least (no debug info here).
  uint64_t puts_addr = 0;
  for (const Mapping& m : maps.mappings()) {
    if (m.executable && m.path.find("libc.so") != std::string::npos) {
      puts_addr = m.start + (m.end - m.start) / 2;
    }
  }
  ASSERT_NE(puts_addr, 0u);
  Location libc = sym.symbolize(maps, puts_addr, false);
  EXPECT_NE(libc.module.find("libc.so"), std::string::npos);
  EXPECT_EQ(sym.modules_seen().size(), 3u);
}

TEST(Symbolizer, NoDwarfFallsBackToSymbolTable) {
  std::string path = fs::canonical(fixture_path("fx_nodwarf")).string();
  FixtureRun run = run_fixture(path);
  ASSERT_TRUE(run.ok);
  ProcessMaps maps = ProcessMaps::parse(run.maps_text);
  Symbolizer sym;
  Location plain = sym.symbolize(maps, run.addrs["plain"], false);
  SCOPED_TRACE(describe(plain));
  ASSERT_EQ(plain.frames.size(), 1u);
  EXPECT_EQ(plain.frames[0].function, "fixture::plain_function(int)");
  EXPECT_EQ(plain.frames[0].line, 0);
  EXPECT_EQ(plain.frames[0].file, "");
  EXPECT_FALSE(plain.has_line());

  // Inlined code is attributed to the function it was inlined into.
  Location leaf = sym.symbolize(maps, run.addrs["leaf_inline"], false);
  ASSERT_EQ(leaf.frames.size(), 1u);
  EXPECT_EQ(leaf.frames[0].function, "fixture::outer_function()");

  Location caller = sym.symbolize(maps, run.addrs["return_address"], true);
  EXPECT_EQ(caller.frames[0].function, "fixture::return_address_caller()");

  auto seen = sym.modules_seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].opened);
  EXPECT_FALSE(seen[0].has_dwarf);
  Module* mod = sym.module(path);
  ASSERT_NE(mod, nullptr);
  EXPECT_FALSE(mod->has_dwarf());
}

// Separate debug info found by build ID under a debuginfo root
// (<root>/.build-id/xx/yyyy.debug), as /usr/lib/debug is laid out.
TEST(Symbolizer, SeparateDebugInfoByBuildId) {
  fs::path dir = temp_dir("buildid");
  fs::path prog = dir / "prog";
  fs::copy_file(fixture_path("fx_debuglink"), prog);
  fs::permissions(prog, fs::perms::owner_all);

  // Read the build ID from the stripped program.
  std::string build_id;
  elf_version(EV_CURRENT);
  int fd = ::open(prog.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  const void* id = nullptr;
  ssize_t len = dwelf_elf_gnu_build_id(elf, &id);
  for (ssize_t i = 0; i < len; ++i) {
    char hex[3];
    snprintf(hex, sizeof hex, "%02x", static_cast<const uint8_t*>(id)[i]);
    build_id += hex;
  }
  elf_end(elf);
  ::close(fd);
  ASSERT_GT(build_id.size(), 2u) << "fixture has no build ID";

  fs::path root = dir / "debugroot";
  fs::path target = root / ".build-id" / build_id.substr(0, 2) /
                    (build_id.substr(2) + ".debug");
  fs::create_directories(target.parent_path());
  fs::copy_file(fixture_path("fx_debuglink.debug"), target);

  FixtureRun run = run_fixture(prog.string());
  ASSERT_TRUE(run.ok);
  ProcessMaps maps = ProcessMaps::parse(run.maps_text);

  // Without the root, the program (its .gnu_debuglink target is not next to
  // the copy) has only its symbol table.
  {
    Symbolizer plain;
    Location loc = plain.symbolize(maps, run.addrs["leaf_inline"], false);
    EXPECT_FALSE(plain.modules_seen().at(0).has_dwarf);
    EXPECT_EQ(loc.frames.size(), 1u);
  }
  Symbolizer sym;
  sym.set_debuginfo_path(root.string());
  Location loc = sym.symbolize(maps, run.addrs["leaf_inline"], false);
  SCOPED_TRACE(describe(loc));
  EXPECT_TRUE(sym.modules_seen().at(0).has_dwarf);
  ASSERT_EQ(loc.frames.size(), 3u);
  EXPECT_EQ(loc.frames[0].line, main_line("leaf_inline"));
  EXPECT_EQ(loc.frames[2].function, "fixture::outer_function()");
  fs::remove_all(dir);
}

// ---- Bad input: never crash, never throw, say why --------------------------

TEST(Symbolizer, UnmappedAndSpecialMappings) {
  FixtureRun run = run_fixture(fixture_path("fx_dwarf5_pie"));
  ASSERT_TRUE(run.ok);
  ProcessMaps maps = ProcessMaps::parse(run.maps_text);
  Symbolizer sym;
  Location none = sym.symbolize(maps, 0x10, false);
  ASSERT_EQ(none.frames.size(), 1u);
  EXPECT_EQ(none.module, "");
  EXPECT_EQ(none.frames[0].function, "");
  EXPECT_EQ(none.frames[0].line, 0);
  EXPECT_EQ(sym.symbolize(maps, 0, true).frames.size(), 1u);

  for (const Mapping& m : maps.mappings()) {
    if (m.path == "[vdso]" || m.path == "[stack]") {
      Location loc = sym.symbolize(maps, m.start, false);
      EXPECT_EQ(loc.module, m.path);
      ASSERT_EQ(loc.frames.size(), 1u);
      EXPECT_EQ(loc.frames[0].function, "");
    }
  }
  EXPECT_TRUE(sym.modules_seen().empty());
}

TEST(Symbolizer, MissingAndUnreadableModules) {
  fs::path dir = temp_dir("bad");
  std::string text_file = (dir / "not_elf.so").string();
  std::ofstream(text_file) << "hello, I am not an ELF file\n";
  std::string truncated = (dir / "truncated").string();
  {
    std::ifstream in(fixture_path("fx_dwarf5_pie"), std::ios::binary);
    std::string head(200, '\0');
    in.read(head.data(), head.size());
    std::ofstream(truncated, std::ios::binary) << head;
  }
  std::string empty = (dir / "empty.so").string();
  std::ofstream{empty};

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/nonexistent/libmissing.so", "No such file"},
      {dir.string(), "not a regular file"},
      {text_file, ""},
      {truncated, ""},
      {empty, ""},
  };
  std::string maps_text;
  uint64_t base = 0x100000;
  for (const auto& [path, why] : cases) {
    char line[512];
    snprintf(line, sizeof line, "%lx-%lx r-xp 00001000 08:01 1 %s\n",
             static_cast<unsigned long>(base),
             static_cast<unsigned long>(base + 0x1000), path.c_str());
    maps_text += line;
    base += 0x10000;
  }
  ProcessMaps maps = ProcessMaps::parse(maps_text);
  ASSERT_EQ(maps.mappings().size(), cases.size());
  Symbolizer sym;
  for (const Mapping& m : maps.mappings()) {
    for (int i = 0; i < 2; ++i) {  // second time from the failure cache
      Location loc = sym.symbolize(maps, m.start + 0x123, i == 1);
      EXPECT_EQ(loc.module, m.path);
      ASSERT_EQ(loc.frames.size(), 1u);
      EXPECT_EQ(loc.frames[0].function, "");
      EXPECT_EQ(loc.frames[0].line, 0);
    }
  }
  auto seen = sym.modules_seen();
  ASSERT_EQ(seen.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& info = seen[i];
    EXPECT_EQ(info.path, cases[i].first);
    EXPECT_FALSE(info.opened) << info.path;
    EXPECT_FALSE(info.has_dwarf);
    EXPECT_NE(info.error, "") << info.path;
    EXPECT_NE(info.error.find(cases[i].second), std::string::npos)
        << info.error;
  }
  std::string error;
  EXPECT_EQ(sym.module("/nonexistent/libmissing.so", &error), nullptr);
  EXPECT_NE(error.find("No such file"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Symbolizer, DeletedBinaryIsReportedNotGuessed) {
  std::string path = fs::canonical(fixture_path("fx_dwarf5_pie")).string();
  FixtureRun run = run_fixture(path);
  ASSERT_TRUE(run.ok);
  std::string text = replace_path(run.maps_text, path, path + " (deleted)");
  ProcessMaps maps = ProcessMaps::parse(text);
  Symbolizer sym;
  Location loc = sym.symbolize(maps, run.addrs["plain"], false);
  EXPECT_EQ(loc.module, path);
  ASSERT_EQ(loc.frames.size(), 1u);
  EXPECT_EQ(loc.frames[0].function, "");
  auto seen = sym.modules_seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_FALSE(seen[0].opened);
  EXPECT_NE(seen[0].error.find("deleted"), std::string::npos);
}

// Garbage in the DWARF sections must not crash the symbolizer.
TEST(Symbolizer, CorruptDwarfDoesNotCrash) {
  fs::path dir = temp_dir("corrupt");
  std::string src = fs::canonical(fixture_path("fx_dwarf5_pie")).string();
  FixtureRun run = run_fixture(src);
  ASSERT_TRUE(run.ok);
  std::mt19937 rng(12345);
  for (int round = 0; round < 6; ++round) {
    std::string copy = (dir / ("corrupt" + std::to_string(round))).string();
    fs::copy_file(src, copy, fs::copy_options::overwrite_existing);
    // Find the .debug_* sections' file ranges.
    std::vector<std::pair<uint64_t, uint64_t>> sections;
    elf_version(EV_CURRENT);
    int fd = ::open(copy.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
    size_t shstrndx = 0;
    elf_getshdrstrndx(elf, &shstrndx);
    for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn)) != nullptr;) {
      GElf_Shdr sh;
      gelf_getshdr(scn, &sh);
      const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (name && std::string(name).rfind(".debug_", 0) == 0 && sh.sh_size) {
        sections.emplace_back(sh.sh_offset, sh.sh_size);
      }
    }
    elf_end(elf);
    ::close(fd);
    ASSERT_FALSE(sections.empty());
    // Flip random bytes in every debug section (more each round).
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    for (auto [off, size] : sections) {
      for (int i = 0; i < 4 << round; ++i) {
        f.seekp(off + rng() % size);
        f.put(static_cast<char>(rng()));
      }
    }
    f.close();
    ProcessMaps maps =
        ProcessMaps::parse(replace_path(run.maps_text, src, copy));
    Symbolizer sym;
    for (const auto& [name, addr] : run.addrs) {
      Location loc = sym.symbolize(maps, addr, name == "return_address");
      EXPECT_FALSE(loc.frames.empty());
    }
    if (Module* mod = sym.module(copy)) {
      mod->load_all();
      mod->for_each_line_range(
          [](std::string_view, int, uint64_t, uint64_t) {});
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace andweorc::symbols
