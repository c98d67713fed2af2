// resolve_test.cc: FUNCTION and FILE:LINE resolved in a fixture built with
// known inlining, each site checked back through the symbolizer (a second,
// independent reading of the same DWARF), plus the refusals.
#include "probes/resolve.h"

#include <gtest/gtest.h>

#include <fstream>

#include "symbols/module.h"

namespace andweorc::probes {
namespace {

const char* kVariants[] = {"probe_fx_dwarf5_pie", "probe_fx_dwarf4_nopie"};

std::string fixture(const char* name) {
  return std::string(PROBE_FIXTURES) + "/" + name;
}

int line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(PROBE_FIXTURE_SRC) + "/" + file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n)
    if (text.find(marker) != std::string::npos) return n;
  return 0;
}

ResolvedProbe resolve_ok(const std::string& binary, const std::string& text) {
  std::string error;
  auto spec = parse_probe_spec(text, &error);
  EXPECT_TRUE(spec) << error;
  auto probe = resolve_probe(binary, *spec, &error);
  EXPECT_TRUE(probe) << error;
  return probe ? *probe : ResolvedProbe{};
}

std::string resolve_error(const std::string& binary, const std::string& text) {
  std::string error;
  auto spec = parse_probe_spec(text, &error);
  EXPECT_TRUE(spec) << error;
  EXPECT_FALSE(resolve_probe(binary, *spec, &error)) << text;
  return error;
}

// Every site's file offset maps back to its vaddr, and the innermost frame
// there is `function`; an inlined copy's DW_AT_entry_pc may instead be the
// caller's instruction where the inlined body begins (g++ puts it before
// the first instruction of the body, with a location view), so there the
// caller `or_caller` is accepted too. Counting at those sites is checked
// by running a program (tests/e2e/probes_test.cc).
void expect_sites_in(const std::string& binary, const ResolvedProbe& p,
                     const std::string& function,
                     const std::string& or_caller = "") {
  std::string error;
  auto module = symbols::Module::open(binary, "", &error);
  ASSERT_TRUE(module) << error;
  for (const auto& s : p.sites) {
    uint64_t vaddr = 0;
    ASSERT_TRUE(module->file_offset_to_vaddr(s.offset, &vaddr));
    EXPECT_EQ(vaddr, s.vaddr) << s.where;
    auto frames = module->lookup(s.vaddr);
    ASSERT_FALSE(frames.empty());
    bool inlined = s.where.find("inlined copy") != std::string::npos;
    if (inlined && frames.front().function == or_caller) continue;
    EXPECT_EQ(frames.front().function, function) << s.where;
  }
}

TEST(ResolveFunction, CountsTheOutOfLineCopyAndEveryInlinedCopy) {
  for (const char* v : kVariants) {
    SCOPED_TRACE(v);
    ResolvedProbe p = resolve_ok(fixture(v), "s=scale");
    int inlined = 0, entries = 0;
    for (const auto& s : p.sites) {
      inlined += s.where.find("inlined copy") != std::string::npos;
      entries += s.where.find("entry") != std::string::npos;
    }
    EXPECT_EQ(entries, 1);  // its address is taken
    EXPECT_EQ(inlined, 2);  // always_inline, two calls in main
    EXPECT_EQ(p.sites.size(), 3u);
    expect_sites_in(fixture(v), p, "scale(int)", "main");
  }
}

TEST(ResolveFunction, QualifiedNamesAndSignatures) {
  std::string bin = fixture(kVariants[0]);
  ResolvedProbe deep = resolve_ok(bin, "d=ns::deep");
  ASSERT_EQ(deep.sites.size(), 1u);
  EXPECT_EQ(resolve_ok(bin, "d=deep").sites.front().vaddr,
            deep.sites.front().vaddr);
  EXPECT_EQ(resolve_ok(bin, "d=ns::deep(int)").sites.front().vaddr,
            deep.sites.front().vaddr);
  expect_sites_in(bin, deep, "ns::deep(int)");
  ResolvedProbe over_int = resolve_ok(bin, "o=over(int)");
  ASSERT_EQ(over_int.sites.size(), 1u);
  expect_sites_in(bin, over_int, "over(int)");
}

TEST(ResolveFunction, AmbiguousNamesListEveryCandidate) {
  std::string bin = fixture(kVariants[0]);
  std::string e = resolve_error(bin, "o=over");
  EXPECT_NE(e.find("ambiguous"), std::string::npos) << e;
  EXPECT_NE(e.find("over(int)"), std::string::npos) << e;
  EXPECT_NE(e.find("over(double)"), std::string::npos) << e;
  // Two static functions `local`, one per part.cc: both files are named.
  e = resolve_error(bin, "l=local");
  EXPECT_NE(e.find("a/part.cc"), std::string::npos) << e;
  EXPECT_NE(e.find("b/part.cc"), std::string::npos) << e;
}

TEST(ResolveFunction, UnknownNameIsRefused) {
  std::string e = resolve_error(fixture(kVariants[0]), "x=no_such_function");
  EXPECT_NE(e.find("no function named 'no_such_function'"), std::string::npos)
      << e;
}

TEST(ResolveLine, FileLineMapsBackToThatLine) {
  for (const char* v : kVariants) {
    SCOPED_TRACE(v);
    int line = line_of("b/part.cc", "PART_B_LINE");
    ASSERT_GT(line, 0);
    ResolvedProbe p =
        resolve_ok(fixture(v), "b=b/part.cc:" + std::to_string(line));
    ASSERT_GE(p.sites.size(), 1u);
    std::string error;
    auto module = symbols::Module::open(fixture(v), "", &error);
    ASSERT_TRUE(module) << error;
    for (const auto& s : p.sites) {
      auto frames = module->lookup(s.vaddr);
      EXPECT_EQ(frames.front().line, line) << s.where;
      EXPECT_NE(frames.front().file.find("b/part.cc"), std::string::npos);
    }
  }
}

TEST(ResolveLine, AmbiguousFileUnknownFileAndLineWithoutCode) {
  std::string bin = fixture(kVariants[0]);
  std::string e = resolve_error(bin, "p=part.cc:4");
  EXPECT_NE(e.find("ambiguous"), std::string::npos) << e;
  EXPECT_NE(e.find("a/part.cc"), std::string::npos) << e;
  EXPECT_NE(e.find("b/part.cc"), std::string::npos) << e;
  e = resolve_error(bin, "p=nowhere.cc:4");
  EXPECT_NE(e.find("no source file ending in 'nowhere.cc'"), std::string::npos)
      << e;
  // Line 1 of b/part.cc is a comment.
  e = resolve_error(bin, "p=b/part.cc:1");
  EXPECT_NE(e.find("no code at"), std::string::npos) << e;
  EXPECT_NE(e.find("nearest lines with code"), std::string::npos) << e;
}

TEST(Resolve, ProgramWithoutDwarfIsRefused) {
  std::string e = resolve_error("/bin/true", "x=main");
  EXPECT_NE(e.find("no DWARF"), std::string::npos) << e;
}

}  // namespace
}  // namespace andweorc::probes
