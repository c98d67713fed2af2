// fixture_util.cc: runs fixture programs and reads their sources for the
// symbolizer tests.
#include "fixture_util.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace andweorc::symbols::testing {

std::string fixture_path(const std::string& name) {
  return std::string(FIXTURE_DIR) + "/" + name;
}

int marker_line(const std::string& source, const std::string& marker) {
  std::ifstream in(source);
  std::string line;
  std::string needle = "MARK:" + marker;
  for (int n = 1; std::getline(in, line); ++n) {
    size_t pos = line.find(needle);
    if (pos == std::string::npos) continue;
    size_t end = pos + needle.size();
    // Whole marker only: MARK:plain must not match MARK:plain_other.
    if (end == line.size() ||
        !(std::isalnum(static_cast<unsigned char>(line[end])) ||
          line[end] == '_')) {
      return n;
    }
  }
  return 0;
}

std::string run_command(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

FixtureRun run_fixture(const std::string& path) {
  FixtureRun run;
  std::istringstream out(run_command("'" + path + "' 2>/dev/null"));
  std::string line;
  bool in_maps = false;
  bool saw_maps = false;
  while (std::getline(out, line)) {
    if (line == "maps-begin") {
      in_maps = true;
    } else if (line == "maps-end") {
      in_maps = false;
      saw_maps = true;
    } else if (in_maps) {
      run.maps_text += line + "\n";
    } else if (line.rfind("addr ", 0) == 0) {
      std::istringstream fields(line.substr(5));
      std::string name, hex;
      fields >> name >> hex;
      run.addrs[name] = std::stoull(hex, nullptr, 16);
    }
  }
  run.ok = saw_maps && run.addrs.count("return_address") == 1;
  return run;
}

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace andweorc::symbols::testing
