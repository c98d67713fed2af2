// probe_object_test.cc: the runtime finds the load bias of the object a
// probe line names (probe_event.h): the executable, a shared library loaded
// under another path (a symlink), and none for a file that is not loaded.
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "runtime/probe_event.h"

namespace andweorc::runtime {
namespace {

struct LoadedLibrary {
  std::string path;
  uint64_t bias = 0;
};

// The first loaded object with a file (a name with '/'), not the executable.
int first_library(dl_phdr_info* info, size_t, void* arg) {
  auto* out = static_cast<LoadedLibrary*>(arg);
  if (info->dlpi_name == nullptr ||
      std::string(info->dlpi_name).find('/') == std::string::npos)
    return 0;
  out->path = info->dlpi_name;
  out->bias = info->dlpi_addr;
  return 1;
}

int main_object(dl_phdr_info* info, size_t, void* arg) {
  *static_cast<uint64_t*>(arg) = info->dlpi_addr;
  return 1;
}

TEST(ProbeObject, TheExecutableAndALibraryGetTheirOwnBias) {
  std::string exe = std::filesystem::canonical("/proc/self/exe").string();
  uint64_t expected = 0, bias = 1;
  dl_iterate_phdr(main_object, &expected);
  ASSERT_TRUE(probe_object_bias(exe.c_str(), exe.c_str(), &bias));
  EXPECT_EQ(bias, expected);

  LoadedLibrary lib;
  dl_iterate_phdr(first_library, &lib);
  ASSERT_FALSE(lib.path.empty());
  // The tool hands the canonical path; the loader's name may be a symlink.
  std::string canonical = std::filesystem::canonical(lib.path).string();
  ASSERT_TRUE(probe_object_bias(canonical.c_str(), exe.c_str(), &bias));
  EXPECT_EQ(bias, lib.bias);
  EXPECT_NE(bias, expected);

  // A file that is not loaded, and one that does not exist.
  EXPECT_FALSE(probe_object_bias("/bin/sh", exe.c_str(), &bias));
  EXPECT_FALSE(probe_object_bias("/no/such/libx.so", exe.c_str(), &bias));
}

}  // namespace
}  // namespace andweorc::runtime
