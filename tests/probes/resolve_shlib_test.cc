// resolve_shlib_test.cc: probes resolved in the shared libraries a program
// loads (fixtures/shlib: probe_fx_shlib_user links libprobe_fx_one.so and
// libprobe_fx_two.so): the search order (the executable, then the libraries),
// ambiguity between libraries, the LIB: prefix, sites in the library's own
// file offsets and vaddrs, and the loader's list parsed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "probes/linked_objects.h"
#include "probes/probe_spec.h"
#include "probes/resolve.h"
#include "probes/trace_sites.h"
#include "symbols/module.h"

namespace andweorc::probes {
namespace {

std::string shlib_fixture(const std::string& name) {
  return std::filesystem::canonical(std::string(PROBE_FIXTURES) + "/" + name)
      .string();
}

int shlib_line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(PROBE_FIXTURE_SRC) + "/shlib/" + file);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n)
    if (text.find(marker) != std::string::npos) return n;
  return 0;
}

std::optional<ResolvedProbe> shlib_resolve(const std::string& text,
                                           std::string* error) {
  auto spec = parse_probe_spec(text, error);
  EXPECT_TRUE(spec) << *error;
  if (!spec) return std::nullopt;
  return resolve_probe(shlib_fixture("probe_fx_shlib_user"), *spec, error);
}

// Every site is in `lib`'s file: its offset maps to its vaddr there and the
// function at that vaddr is `function`.
void expect_in_library(const ResolvedProbe& p, const std::string& lib,
                       const std::string& function) {
  EXPECT_EQ(p.object, lib);
  EXPECT_EQ(p.program, shlib_fixture("probe_fx_shlib_user"));
  std::string error;
  auto module = symbols::Module::open(shlib_fixture(lib), "", &error);
  ASSERT_TRUE(module) << error;
  ASSERT_FALSE(p.sites.empty());
  for (const auto& s : p.sites) {
    EXPECT_EQ(s.path, shlib_fixture(lib));
    EXPECT_NE(s.where.find("in " + lib), std::string::npos) << s.where;
    uint64_t vaddr = 0;
    ASSERT_TRUE(module->file_offset_to_vaddr(s.offset, &vaddr));
    EXPECT_EQ(vaddr, s.vaddr) << s.where;
    auto frames = module->lookup(s.vaddr);
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.front().function, function) << s.where;
  }
}

TEST(LinkedObjects, TheLoaderListsTheLibrariesInItsOrder) {
  const LinkedObjects& o = linked_objects(shlib_fixture("probe_fx_shlib_user"));
  ASSERT_TRUE(o.error.empty()) << o.error;
  ASSERT_GE(o.libraries.size(), 2u);
  EXPECT_EQ(o.libraries[0].name, "libprobe_fx_one.so");
  EXPECT_EQ(o.libraries[0].path, shlib_fixture("libprobe_fx_one.so"));
  EXPECT_EQ(o.libraries[1].name, "libprobe_fx_two.so");
}

TEST(LinkedObjects, ParsesTheLoaderOutput) {
  LinkedObjects o = parse_loader_list(
      "\tlinux-vdso.so.1 (0x00007ffd5a1f2000)\n"
      "\tlibgone.so => not found\n"
      "\tlibc.so.6 => /proc/self/exe (0x00007f0c1a000000)\n"
      "\t/proc/self/exe (0x00007f0c1a400000)\n");
  ASSERT_EQ(o.missing.size(), 1u);
  EXPECT_EQ(o.missing[0], "libgone.so");
  // The vDSO has no file; a file listed twice is one object.
  ASSERT_EQ(o.libraries.size(), 1u);
  EXPECT_EQ(o.libraries[0].name, "libc.so.6");
  EXPECT_EQ(o.libraries[0].path,
            std::filesystem::canonical("/proc/self/exe").string());
}

TEST(ResolveShlib, AFunctionOnlyInALibraryIsFoundThere) {
  std::string error;
  auto p = shlib_resolve("w=only_in_one", &error);
  ASSERT_TRUE(p) << error;
  expect_in_library(*p, "libprobe_fx_one.so", "only_in_one(int)");
  // The handoff names the program first, then the library's sites.
  std::string text = encode_probes({*p});
  EXPECT_EQ(text.rfind("@program\t0\t" + p->program + "\t0\t0\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("\t" + shlib_fixture("libprobe_fx_one.so") + "\t"),
            std::string::npos);
}

TEST(ResolveShlib, ALineInALibraryWithOrWithoutItsName) {
  int line = shlib_line_of("one.cc", "ONE_LINE");
  ASSERT_GT(line, 0);
  for (std::string text : {"l=one.cc:", "l=libprobe_fx_one.so:shlib/one.cc:"}) {
    SCOPED_TRACE(text);
    std::string error;
    auto p = shlib_resolve(text + std::to_string(line), &error);
    ASSERT_TRUE(p) << error;
    expect_in_library(*p, "libprobe_fx_one.so", "only_in_one(int)");
  }
}

TEST(ResolveShlib, TheExecutableComesFirst) {
  std::string error;
  auto p = shlib_resolve("e=everywhere", &error);
  ASSERT_TRUE(p) << error;
  EXPECT_EQ(p->object, "");
  ASSERT_EQ(p->sites.size(), 1u);
  EXPECT_EQ(p->sites[0].path, shlib_fixture("probe_fx_shlib_user"));
  // LIB: picks a library's copy instead.
  p = shlib_resolve("e=libprobe_fx_two.so:everywhere", &error);
  ASSERT_TRUE(p) << error;
  expect_in_library(*p, "libprobe_fx_two.so", "everywhere(int)");
}

// PROGRAM:TARGET with the path of another program (one the profiled
// program starts, as a shell starts nginx): resolved in that program's
// file, and handed over under a marker naming it, after the profiled
// program's own probes. The profiled program's own path is the program.
TEST(ResolveShlib, AnotherProgramIsNamedByItsPath) {
  const std::string shell = shlib_fixture("probe_fx_dwarf5_pie");
  const std::string started = shlib_fixture("probe_fx_shlib_user");
  std::string error;
  auto spec = parse_probe_spec("s=" + started + ":everywhere", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, started);
  auto p = resolve_probe(shell, *spec, &error);
  ASSERT_TRUE(p) << error;
  EXPECT_TRUE(p->started_program);
  EXPECT_EQ(p->program, started);
  EXPECT_EQ(p->object, "probe_fx_shlib_user");
  ASSERT_EQ(p->sites.size(), 1u);
  EXPECT_EQ(p->sites[0].path, started);
  EXPECT_NE(p->sites[0].where.find("in probe_fx_shlib_user"),
            std::string::npos);

  auto own_spec = parse_probe_spec("o=" + shell + ":scale", &error);
  ASSERT_TRUE(own_spec) << error;
  auto own = resolve_probe(shell, *own_spec, &error);
  ASSERT_TRUE(own) << error;
  EXPECT_FALSE(own->started_program);
  EXPECT_EQ(own->program, shell);
  EXPECT_EQ(own->object, "");

  // Given in either order, the profiled program's probes come first, each
  // group after a marker naming its program.
  std::string text = encode_probes({*p, *own});
  size_t first = text.find("@program\t0\t" + shell + "\t0\t0\n");
  size_t second = text.find("@program\t0\t" + started + "\t0\t0\n");
  ASSERT_EQ(first, 0u) << text;
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_LT(text.find("\no\t"), second) << text;
  EXPECT_GT(text.find("\ns\t"), second) << text;
}

// PROGRAM:FUNCTION without a path, or with a path to no ELF file: the
// refusal says how to name a started program.
TEST(ResolveShlib, AProgramNamedWithoutItsPathGetsAHint) {
  std::string error;
  auto p = shlib_resolve("s=nginx:ngx_http_free_request", &error);
  EXPECT_FALSE(p);
  EXPECT_NE(error.find("name it by its path (./nginx:ngx_http_free_request)"),
            std::string::npos)
      << error;
  p = shlib_resolve("s=/no/such/nginx:f", &error);
  EXPECT_FALSE(p);
  EXPECT_NE(error.find("'/no/such/nginx' is not an ELF file"),
            std::string::npos)
      << error;
  // A qualified name is no object.
  p = shlib_resolve("s=ns::no_such", &error);
  EXPECT_FALSE(p);
  EXPECT_EQ(error.find("by its path"), std::string::npos) << error;
}

TEST(ResolveShlib, ANameInTwoLibrariesIsAmbiguousUntilOneIsNamed) {
  std::string error;
  EXPECT_FALSE(shlib_resolve("b=in_both_libs", &error));
  EXPECT_NE(error.find("ambiguous"), std::string::npos) << error;
  EXPECT_NE(error.find("libprobe_fx_one.so"), std::string::npos) << error;
  EXPECT_NE(error.find("libprobe_fx_two.so"), std::string::npos) << error;
  EXPECT_NE(error.find("name one: libprobe_fx_one.so:in_both_libs"),
            std::string::npos)
      << error;
  for (std::string lib : {"libprobe_fx_one.so", "libprobe_fx_two.so"}) {
    auto p = shlib_resolve("b=" + lib + ":in_both_libs", &error);
    ASSERT_TRUE(p) << error;
    expect_in_library(*p, lib, "in_both_libs(int)");
  }
}

TEST(ResolveShlib, UnknownNamesAndLibrariesAreRefused) {
  std::string error;
  EXPECT_FALSE(shlib_resolve("x=nowhere_at_all", &error));
  EXPECT_NE(error.find("no function named 'nowhere_at_all'"), std::string::npos)
      << error;
  // The libraries searched are named.
  EXPECT_NE(error.find("libprobe_fx_one.so"), std::string::npos) << error;
  EXPECT_FALSE(shlib_resolve("x=libnope.so:only_in_one", &error));
  EXPECT_NE(error.find("'libnope.so' is not a library"), std::string::npos)
      << error;
  EXPECT_NE(error.find("libprobe_fx_two.so"), std::string::npos) << error;
  // Found in the named library only.
  EXPECT_FALSE(shlib_resolve("x=libprobe_fx_two.so:only_in_one", &error));
  EXPECT_NE(error.find("in libprobe_fx_two.so"), std::string::npos) << error;
}

TEST(ResolveShlib, TraceFindsALibraryFunction) {
  std::string error;
  auto t =
      trace_probes(shlib_fixture("probe_fx_shlib_user"), "only_in_one", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->entries.object, "libprobe_fx_one.so");
  EXPECT_EQ(t->entries.program, shlib_fixture("probe_fx_shlib_user"));
  ASSERT_EQ(t->entries.sites.size(), 1u);
  EXPECT_EQ(t->entries.sites[0].path, shlib_fixture("libprobe_fx_one.so"));
}

}  // namespace
}  // namespace andweorc::probes
