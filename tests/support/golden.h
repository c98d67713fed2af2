// golden.h: compares a writer's output with a golden file in the test
// folder's golden/ directory (ANDWEORC_GOLDEN_DIR, set by its CMakeLists).
// ANDWEORC_UPDATE_GOLDEN=1 rewrites the file instead (review the diff).
#ifndef ANDWEORC_TESTS_SUPPORT_GOLDEN_H_
#define ANDWEORC_TESTS_SUPPORT_GOLDEN_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#ifndef ANDWEORC_GOLDEN_DIR
#error "ANDWEORC_GOLDEN_DIR must name the test folder's golden/ directory"
#endif

namespace andweorc::testing {

inline void expect_golden(const std::string& name, const std::string& actual) {
  std::string path = std::string(ANDWEORC_GOLDEN_DIR) + "/" + name;
  const char* update = std::getenv("ANDWEORC_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path
                  << " (run with ANDWEORC_UPDATE_GOLDEN=1 to create it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "golden file " << path;
}

}  // namespace andweorc::testing

#endif  // ANDWEORC_TESTS_SUPPORT_GOLDEN_H_
