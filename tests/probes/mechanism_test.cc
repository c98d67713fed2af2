// mechanism_test.cc: which instructions x86 uprobes refuse (the kernel's
// is_prefix_bad), so that the tool sends those sites to breakpoints.
#include "probes/mechanism.h"

#include <gtest/gtest.h>

namespace andweorc::probes {
namespace {

bool refuses(std::initializer_list<uint8_t> bytes) {
  std::vector<uint8_t> code(bytes);
  return uprobe_refuses_instruction(code.data(), code.size());
}

TEST(UprobeRefuses, LockAndSegmentPrefixes) {
  EXPECT_TRUE(refuses({0xf0, 0x48, 0x83, 0x05}));  // lock addq
  EXPECT_TRUE(refuses({0x3e, 0xff, 0xe0}));        // notrack jmp *%rax
  EXPECT_TRUE(refuses({0x66, 0xf0, 0x83, 0x00}));  // lock after 0x66
  EXPECT_TRUE(refuses({0x2e, 0x0f, 0x1f, 0x84}));  // cs nopw
}

TEST(UprobeRefuses, OrdinaryInstructions) {
  EXPECT_FALSE(refuses({0x55}));                    // push %rbp
  EXPECT_FALSE(refuses({0xf3, 0x0f, 0x1e, 0xfa}));  // endbr64
  EXPECT_FALSE(refuses({0x48, 0x89, 0xe5}));        // mov %rsp,%rbp
  EXPECT_FALSE(refuses({0x64, 0x48, 0x8b, 0x04}));  // mov %fs:...
  // A REX byte ends the prefixes: 0xf0 after it is not a prefix.
  EXPECT_FALSE(refuses({0x48, 0xf0}));
  EXPECT_FALSE(refuses({}));
}

}  // namespace
}  // namespace andweorc::probes
