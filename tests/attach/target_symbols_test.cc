// target_symbols_test.cc: a function's address in a process from its maps
// and the library's ELF file must be where the dynamic loader put it.
#include "attach/target_symbols.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace andweorc::attach {
namespace {

symbols::ProcessMaps own_maps() {
  std::ifstream in("/proc/self/maps");
  std::ostringstream text;
  text << in.rdbuf();
  return symbols::ProcessMaps::parse(text.str());
}

// libc's own definition (a sanitizer may interpose dlopen in the program).
void* libc_symbol(const char* name, const char* version = nullptr) {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (libc == nullptr) return nullptr;
  void* p = version ? dlvsym(libc, name, version) : dlsym(libc, name);
  dlclose(libc);
  return p;
}

TEST(TargetSymbols, FindsLibcFunctionsWhereTheLoaderPutThem) {
  symbols::ProcessMaps maps = own_maps();
  std::string libc = mapped_module(maps, "libc.so.");
  ASSERT_FALSE(libc.empty());
  for (const char* name : {"dlopen", "dlerror", "getpid", "malloc"}) {
    std::string error;
    auto address = symbol_address(maps, libc, name, &error);
    ASSERT_TRUE(address.has_value()) << name << ": " << error;
    EXPECT_EQ(*address, reinterpret_cast<uint64_t>(libc_symbol(name))) << name;
  }
}

TEST(TargetSymbols, PrefersTheDefaultVersion) {
  symbols::ProcessMaps maps = own_maps();
  std::string libc = mapped_module(maps, "libc.so.");
  std::string error;
  auto address = symbol_address(maps, libc, "pthread_cond_wait", &error);
  ASSERT_TRUE(address.has_value()) << error;
  void* fresh = libc_symbol("pthread_cond_wait", "GLIBC_2.3.2");
  void* compat = libc_symbol("pthread_cond_wait", "GLIBC_2.2.5");
  ASSERT_NE(fresh, nullptr);
  ASSERT_NE(fresh, compat);  // else the test shows nothing
  EXPECT_EQ(*address, reinterpret_cast<uint64_t>(fresh));
}

TEST(TargetSymbols, MissingSymbolOrModuleIsAnError) {
  symbols::ProcessMaps maps = own_maps();
  std::string libc = mapped_module(maps, "libc.so.");
  std::string error;
  EXPECT_FALSE(symbol_address(maps, libc, "no_such_function_xyz", &error));
  EXPECT_NE(error.find("no_such_function_xyz"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(symbol_address(maps, "/not/mapped.so", "dlopen", &error));
  EXPECT_NE(error.find("not mapped"), std::string::npos) << error;
}

TEST(TargetSymbols, ModuleStartIsTheMappingAtFileOffsetZero) {
  auto maps = symbols::ProcessMaps::parse(
      "7f0000000000-7f0000028000 r--p 00000000 fd:01 100 "
      "/usr/lib/x86_64-linux-gnu/libcrypt.so.1\n"
      "7f1000000000-7f1000028000 r--p 00000000 fd:01 200 "
      "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f1000028000-7f100019d000 r-xp 00028000 fd:01 200 "
      "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f2000000000-7f2000001000 r--p 00000000 fd:01 300 /tmp/old.so "
      "(deleted)\n");
  EXPECT_EQ(mapped_module(maps, "libc.so."),
            "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(mapped_module(maps, "libm.so."), "");
  EXPECT_EQ(module_start(maps, "/usr/lib/x86_64-linux-gnu/libc.so.6"),
            0x7f1000000000u);
  // A replaced file's mapping is not the file now at that path.
  EXPECT_FALSE(module_start(maps, "/tmp/old.so").has_value());
}

}  // namespace
}  // namespace andweorc::attach
