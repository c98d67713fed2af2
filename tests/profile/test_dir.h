// test_dir.h: a fresh temporary directory per test, removed afterwards.
#ifndef ANDWEORC_TESTS_PROFILE_TEST_DIR_H_
#define ANDWEORC_TESTS_PROFILE_TEST_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace andweorc::profile::testing {

class TestDir {
 public:
  TestDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "andweorc-test-XXXXXX")
            .string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : "";
  }
  ~TestDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  // Names of the entries directly inside the directory.
  std::set<std::string> entries() const {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_)) {
      out.insert(e.path().filename().string());
    }
    return out;
  }

 private:
  std::string path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace andweorc::profile::testing

#endif  // ANDWEORC_TESTS_PROFILE_TEST_DIR_H_
