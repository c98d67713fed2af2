// probe_spec_test.cc: --progress values parsed, bad ones refused, and the
// handoff text the runtime parses.
#include "probes/probe_spec.h"

#include <gtest/gtest.h>

namespace andweorc::probes {
namespace {

TEST(ProbeSpec, FunctionNamesIncludingQualifiedOnes) {
  std::string error;
  auto spec = parse_probe_spec("req=ns::Server::handle", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->name, "req");
  EXPECT_FALSE(spec->is_line);
  EXPECT_EQ(spec->function, "ns::Server::handle");
  spec = parse_probe_spec("f=over(int)", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->function, "over(int)");
}

TEST(ProbeSpec, FileAndLine) {
  std::string error;
  auto spec = parse_probe_spec("rows=src/parse.cc:120", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_TRUE(spec->is_line);
  EXPECT_EQ(spec->file, "src/parse.cc");
  EXPECT_EQ(spec->line, 120);
}

TEST(ProbeSpec, ALibraryPrefixNamesTheSharedObject) {
  std::string error;
  auto spec = parse_probe_spec("w=libfoo.so:ns::Server::handle", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, "libfoo.so");
  EXPECT_FALSE(spec->is_line);
  EXPECT_EQ(spec->function, "ns::Server::handle");
  spec = parse_probe_spec("l=libfoo.so.1:src/a.cc:12", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, "libfoo.so.1");
  EXPECT_TRUE(spec->is_line);
  EXPECT_EQ(spec->file, "src/a.cc");
  EXPECT_EQ(spec->line, 12);
  EXPECT_EQ(spec->target, "libfoo.so.1:src/a.cc:12");
  spec = parse_probe_spec("p=/opt/lib/libbar.so:run", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, "/opt/lib/libbar.so");
  EXPECT_EQ(spec->function, "run");
  // No library: a qualified name, a file, a file whose name has ".so" inside
  // a word.
  for (const char* text : {"q=ns::f", "q=a.cc:3", "q=also.cc:4", "q=a.sox:f"}) {
    spec = parse_probe_spec(text, &error);
    ASSERT_TRUE(spec) << error;
    EXPECT_EQ(spec->object, "") << text;
  }
  EXPECT_FALSE(parse_probe_spec("q=libfoo.so:", &error));
  EXPECT_NE(error.find("names an object but nothing in it"), std::string::npos)
      << error;
  std::string lib, rest;
  EXPECT_TRUE(split_library("libfoo.so:f", &lib, &rest));
  EXPECT_EQ(lib, "libfoo.so");
  EXPECT_EQ(rest, "f");
  EXPECT_FALSE(split_library("ns::f", &lib, &rest));
}

// A path to an ELF file (a program the profiled one starts) prefixes a
// target like a library; a path to a source file stays a FILE:LINE.
TEST(ProbeSpec, APathToAnElfFileNamesThatObject) {
  std::string error;
  auto spec = parse_probe_spec("r=/bin/sh:main", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, "/bin/sh");
  EXPECT_EQ(spec->function, "main");
  const std::string source = std::string(__FILE__);
  spec = parse_probe_spec("r=" + source + ":12", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, "");
  EXPECT_TRUE(spec->is_line);
  EXPECT_EQ(spec->file, source);
  spec = parse_probe_spec("r=/no/such/file:f", &error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->object, "");  // not a file: a FILE:FUNCTION is no target
}

TEST(ProbeSpec, BadValuesAreRefusedWithTheValue) {
  for (const char* bad :
       {"noequals", "=f", "x=", "x=a.cc:0", "x=:12", "x=a\tb"}) {
    std::string error;
    EXPECT_FALSE(parse_probe_spec(bad, &error)) << bad;
    EXPECT_NE(error.find("--progress"), std::string::npos) << error;
  }
}

TEST(ProbeSpec, EncodesOneLinePerSite) {
  ResolvedProbe p;
  p.name = "units";
  p.sites = {{"/bin/x", 0x1050, 0x2050, ""}, {"/bin/x", 0x10a0, 0x20a0, ""}};
  EXPECT_EQ(encode_probes({p}),
            "units\t1\t/bin/x\t1050\t2050\nunits\t1\t/bin/x\t10a0\t20a0\n");
}

}  // namespace
}  // namespace andweorc::probes
