// labels_absent_test.cc: without the runtime, labels cost nothing and apply
// simply calls the work.
#include <andweorc/andweorc.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace {

TEST(LabelWithoutRuntime, AppliesDirectly) {
  andweorc::Label l("k", "v");
  EXPECT_FALSE(l.active());
  EXPECT_EQ(l.apply([] { return 11; }), 11);
  EXPECT_THROW(l.apply([]() -> int { throw std::logic_error("x"); }),
               std::logic_error);
  l.progress("requests");  // no-op
  andweorc_label_t* c = andweorc_label_new("k", "v");
  ASSERT_NE(c, nullptr);
  int ran = 0;
  andweorc_label_apply(
      c, [](void* p) { ++*static_cast<int*>(p); }, &ran);
  andweorc_label_apply(
      nullptr, [](void* p) { ++*static_cast<int*>(p); }, &ran);
  EXPECT_EQ(ran, 2);
  andweorc_label_free(c);
}

}  // namespace
