// temp_dir.h: a fresh directory under /tmp for one test, removed with
// everything in it when the object goes.
#ifndef ANDWEORC_TESTS_SUPPORT_TEMP_DIR_H_
#define ANDWEORC_TESTS_SUPPORT_TEMP_DIR_H_

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace andweorc::testing {

class TempDir {
 public:
  TempDir() {
    std::string templ = "/tmp/andweorc-test-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();  // no directory: every later step would mislead
    }
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace andweorc::testing

#endif  // ANDWEORC_TESTS_SUPPORT_TEMP_DIR_H_
