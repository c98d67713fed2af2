// Tests for binary/source scope matching.
#include "symbols/scope.h"

#include <gtest/gtest.h>

namespace andweorc::symbols {
namespace {

TEST(Scope, MainMeansTheProcessExecutable) {
  ScopeMatcher m(default_binary_scope(), default_source_scope());
  EXPECT_TRUE(m.binary_matches("/opt/app/server", "/opt/app/server"));
  EXPECT_FALSE(
      m.binary_matches("/lib/x86_64-linux-gnu/libc.so.6", "/opt/app/server"));
  EXPECT_FALSE(m.binary_matches("", "/opt/app/server"));
}

TEST(Scope, DefaultSourceScopeExcludesSystemHeaders) {
  ScopeMatcher m(default_binary_scope(), default_source_scope());
  EXPECT_TRUE(m.source_matches("/home/me/src/main.cc"));
  EXPECT_FALSE(m.source_matches("/usr/include/c++/12/bits/stl_vector.h"));
  EXPECT_FALSE(
      m.source_matches("/usr/lib/gcc/x86_64-linux-gnu/12/include/x.h"));
  EXPECT_FALSE(m.source_matches(""));
}

TEST(Scope, GlobsMatchPathsOrBasenames) {
  EXPECT_TRUE(glob_matches("*.cc", "/a/b/c.cc"));
  EXPECT_TRUE(glob_matches("/a/*", "/a/b/c.cc"));
  EXPECT_FALSE(glob_matches("/x/*", "/a/b/c.cc"));
  EXPECT_TRUE(glob_matches("libfoo*", "/usr/lib/libfoo.so.1"));
  EXPECT_FALSE(glob_matches("libbar*", "/usr/lib/libfoo.so.1"));
}

TEST(Scope, ExplicitScopesAndExclusions) {
  ScopeMatcher m({"MAIN", "*libwork*"}, {"*/src/*", "!*/src/vendor/*"});
  EXPECT_TRUE(m.binary_matches("/usr/lib/libwork.so", "/bin/app"));
  EXPECT_TRUE(m.source_matches("/p/src/a.cc"));
  EXPECT_FALSE(m.source_matches("/p/src/vendor/z.cc"));
  EXPECT_FALSE(m.source_matches("/p/test/a.cc"));
}

}  // namespace
}  // namespace andweorc::symbols
