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
