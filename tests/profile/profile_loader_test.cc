// profile_loader_test.cc: format detection by content.
#include "profile/profile_loader.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_dir.h"

namespace andweorc::profile {
namespace {

TEST(ProfileLoader, DetectsTheFormatByContent) {
  EXPECT_EQ(detect_format("{\n  \"format\": \"andweorc-profile\""),
            ProfileFormat::kAndweorcJson);
  EXPECT_EQ(detect_format("{\"format\":\"andweorc-profile\",\"type\":1}"),
            ProfileFormat::kAndweorcJson);
  EXPECT_EQ(detect_format("  \n{\"type\":\"startup\",\"time\":1}\n"),
            ProfileFormat::kCoz);
  EXPECT_EQ(detect_format("startup\ttime=1\n"), ProfileFormat::kCoz);
  EXPECT_EQ(detect_format(""), ProfileFormat::kCoz);
}

TEST(ProfileLoader, LoadsEitherFormatWhateverTheExtension) {
  testing::TestDir dir;
  Profile p;
  p.run.sampler = "perf";
  std::string error;
  ASSERT_TRUE(write_profile(p, dir.file("run.coz"), &error)) << error;
  ReadResult json = load_profile(dir.file("run.coz"));
  ASSERT_TRUE(json.ok()) << json.error;
  EXPECT_EQ(json.profile->run.sampler, "perf");
  std::ofstream(dir.file("profile.json"))
      << "experiment\tselected=a.c:1\tspeedup=0.25\tduration=9\n";
  ReadResult coz = load_profile(dir.file("profile.json"));
  ASSERT_TRUE(coz.ok()) << coz.error;
  EXPECT_EQ(coz.profile->experiments.at(0).speedup_pct, 25);
}

TEST(ProfileLoader, ErrorsNameTheFile) {
  testing::TestDir dir;
  EXPECT_EQ(
      load_profile(dir.file("missing")).error,
      "cannot read " + dir.file("missing") + ": No such file or directory");
  EXPECT_EQ(load_profile(dir.path()).error,
            "cannot read " + dir.path() + ": it is a directory");
  std::ofstream(dir.file("cut.json")) << "{\"format\": \"andweorc-pro";
  ReadResult cut = load_profile(dir.file("cut.json"));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error.rfind(dir.file("cut.json") + ": ", 0), 0u) << cut.error;
  EXPECT_EQ(cut.error.find('\n'), std::string::npos);
}

TEST(ProfileLoader, RejectsAnUnknownMajorVersion) {
  testing::TestDir dir;
  std::ofstream(dir.file("v2.json"))
      << "{\"format\":\"andweorc-profile\",\"version\":\"2.0\"}";
  EXPECT_EQ(load_profile(dir.file("v2.json")).error,
            dir.file("v2.json") +
                ": profile format version 2.0 is newer than this andweorc "
                "understands (1.x)");
}

}  // namespace
}  // namespace andweorc::profile
