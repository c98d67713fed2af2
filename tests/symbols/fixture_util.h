// fixture_util.h: helpers shared by the symbolizer tests: run a fixture
// program, read its maps and addresses, and find MARK: lines in its source.
#ifndef ANDWEORC_TESTS_SYMBOLS_FIXTURE_UTIL_H_
#define ANDWEORC_TESTS_SYMBOLS_FIXTURE_UTIL_H_

#include <cstdint>
#include <map>
#include <string>

namespace andweorc::symbols::testing {

// Absolute path of a fixture built by tests/symbols/CMakeLists.txt.
std::string fixture_path(const std::string& name);

// Line number of the "MARK:<marker>" comment in `source`; 0 if absent.
int marker_line(const std::string& source, const std::string& marker);

struct FixtureRun {
  bool ok = false;
  std::string maps_text;                  // the program's /proc/self/maps
  std::map<std::string, uint64_t> addrs;  // "addr <name> <hex>" lines
};
FixtureRun run_fixture(const std::string& path);

// Output of a shell command (stdout only).
std::string run_command(const std::string& command);

std::string basename_of(const std::string& path);

}  // namespace andweorc::symbols::testing

#endif  // ANDWEORC_TESTS_SYMBOLS_FIXTURE_UTIL_H_
