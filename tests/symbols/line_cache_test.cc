// line_cache_test.cc: the line cache on disk: what goes in comes out, the
// key separates binaries and scopes, and a damaged file is a miss with a
// reason, never a wrong catalog.
#include "symbols/line_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "fixture_util.h"
#include "support/temp_dir.h"

namespace andweorc::symbols {
namespace {

namespace fs = std::filesystem;

class LineCache : public ::testing::Test {
 protected:
  static ModuleLines sample() {
    ModuleLines m;
    m.lines = {{"/src/a.cc", 10, "work(int)"},
               {"/src/a.cc", 11, "work(int)"},
               {"/src/b.h", 3, "helper()"}};
    m.functions = {"work(int)", "main"};
    m.ranges = {
        {0x1000, 0x1010, 0, 0}, {0x1010, 0x1020, 2, 0}, {0x2000, 0x2008, 1, 1}};
    return m;
  }
  std::string bytes_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)),
                       std::istreambuf_iterator<char>());
  }
  void put(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }

  andweorc::testing::TempDir tmp_;
  const std::string dir_ = tmp_.path();
  ScopeMatcher scope_{default_binary_scope(), default_source_scope()};
};

TEST_F(LineCache, WhatIsWrittenIsRead) {
  std::string path = line_cache_path(dir_, "abcd", scope_);
  std::string error;
  ASSERT_TRUE(write_line_cache(path, sample(), &error)) << error;
  ModuleLines back;
  ASSERT_TRUE(read_line_cache(path, &back, &error)) << error;
  EXPECT_EQ(back, sample());
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(fs::path(path).parent_path()),
                          fs::directory_iterator{}),
            1);
  ModuleLines empty;
  ASSERT_TRUE(write_line_cache(path, empty, &error)) << error;
  ASSERT_TRUE(read_line_cache(path, &back, &error)) << error;
  EXPECT_EQ(back, empty);
}

TEST_F(LineCache, TheNameSeparatesBinariesAndSourceScopes) {
  ScopeMatcher other({"MAIN"}, {"*/src/*"});
  ScopeMatcher same_sources({"MAIN", "*libx*"}, default_source_scope());
  std::string p = line_cache_path(dir_, "abcd", scope_);
  EXPECT_EQ(p.rfind(dir_ + "/lines/abcd-", 0), 0u) << p;
  EXPECT_NE(p, line_cache_path(dir_, "abce", scope_));
  EXPECT_NE(p, line_cache_path(dir_, "abcd", other));
  // The binary scope picks files, not their lines.
  EXPECT_EQ(p, line_cache_path(dir_, "abcd", same_sources));
  // Nothing to name a file without a build-id, or without a directory.
  EXPECT_EQ(line_cache_path(dir_, "", scope_), "");
  EXPECT_EQ(line_cache_path("", "abcd", scope_), "");
}

TEST_F(LineCache, DirectoryFromTheEnvironment) {
  const char* saved = getenv("ANDWEORC_CACHE_DIR");
  const char* saved_xdg = getenv("XDG_CACHE_HOME");
  std::string keep = saved ? saved : "", keep_xdg = saved_xdg ? saved_xdg : "";
  setenv("ANDWEORC_CACHE_DIR", "/x/cache", 1);
  EXPECT_EQ(default_cache_dir(), "/x/cache");
  setenv("ANDWEORC_CACHE_DIR", "off", 1);
  EXPECT_EQ(default_cache_dir(), "");
  unsetenv("ANDWEORC_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/x/xdg", 1);
  EXPECT_EQ(default_cache_dir(), "/x/xdg/andweorc");
  unsetenv("XDG_CACHE_HOME");
  if (saved) setenv("ANDWEORC_CACHE_DIR", keep.c_str(), 1);
  if (saved_xdg) setenv("XDG_CACHE_HOME", keep_xdg.c_str(), 1);
}

TEST_F(LineCache, DamagedFilesAreMissesWithAReason) {
  std::string path = line_cache_path(dir_, "abcd", scope_);
  std::string error;
  ModuleLines out = sample();
  EXPECT_FALSE(read_line_cache(path, &out, &error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  ASSERT_TRUE(write_line_cache(path, sample(), &error)) << error;
  std::string good = bytes_of(path);

  put(path, good.substr(0, good.size() - 1));  // truncated
  EXPECT_FALSE(read_line_cache(path, &out, &error));
  EXPECT_NE(error.find("truncated or corrupt"), std::string::npos) << error;

  std::string flipped = good;
  flipped[flipped.size() - 5] ^= 0x40;  // a bit of the last range
  put(path, flipped);
  EXPECT_FALSE(read_line_cache(path, &out, &error));
  EXPECT_NE(error.find("truncated or corrupt"), std::string::npos) << error;

  std::string old = good;
  old[8] = char(old[8] + 1);  // another format version
  put(path, old);
  EXPECT_FALSE(read_line_cache(path, &out, &error));
  EXPECT_NE(error.find("not a line cache of this version"), std::string::npos)
      << error;

  put(path, "");
  EXPECT_FALSE(read_line_cache(path, &out, &error));
  EXPECT_FALSE(read_line_cache(dir_, &out, &error));  // a directory
  EXPECT_NE(error.find("not a readable file"), std::string::npos) << error;
  // The output is untouched by every failed read.
  EXPECT_EQ(out, sample());
}

TEST_F(LineCache, IdsOutOfRangeAreRejectedEvenWithAGoodChecksum) {
  std::string path = line_cache_path(dir_, "abcd", scope_);
  ModuleLines bad = sample();
  bad.ranges[1].line = 7;  // there are 3 lines
  std::string error;
  ASSERT_TRUE(write_line_cache(path, bad, &error)) << error;
  ModuleLines out;
  EXPECT_FALSE(read_line_cache(path, &out, &error));
  EXPECT_NE(error.find("out of range"), std::string::npos) << error;
}

TEST_F(LineCache, PruningKeepsTheEntriesUsedLast) {
  std::string error;
  auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(3);
  std::vector<std::string> paths;
  for (int i = 0; i < 5; ++i) {
    paths.push_back(line_cache_path(dir_, "id" + std::to_string(i), scope_));
    ASSERT_TRUE(write_line_cache(paths.back(), sample(), &error)) << error;
    fs::last_write_time(paths.back(), t0 + std::chrono::minutes(i));
  }
  fs::last_write_time(paths[0], t0 + std::chrono::hours(1));  // used again
  std::string killed = paths[1] + ".tmp123", fresh = paths[1] + ".tmp456";
  put(killed, "x");
  fs::last_write_time(killed, t0);
  put(fresh, "x");  // a writer still writing
  prune_line_cache(dir_, 2);
  EXPECT_TRUE(fs::exists(paths[0]));
  EXPECT_TRUE(fs::exists(paths[4]));
  for (int i = 1; i < 4; ++i) EXPECT_FALSE(fs::exists(paths[i])) << i;
  EXPECT_FALSE(fs::exists(killed));
  EXPECT_TRUE(fs::exists(fresh));
  prune_line_cache(dir_ + "/none", 2);  // no directory: nothing to do

  // A cache directory whose own path holds ".tmp": its entries are entries.
  std::string dotted = dir_ + "/x.tmp";
  std::vector<std::string> kept;
  for (int i = 0; i < 3; ++i) {
    kept.push_back(line_cache_path(dotted, "id" + std::to_string(i), scope_));
    ASSERT_TRUE(write_line_cache(kept.back(), sample(), &error)) << error;
    fs::last_write_time(kept.back(), t0 + std::chrono::minutes(i));
  }
  prune_line_cache(dotted, 2);
  EXPECT_FALSE(fs::exists(kept[0]));
  EXPECT_TRUE(fs::exists(kept[1]));
  EXPECT_TRUE(fs::exists(kept[2]));
}

// The catalog is built by one code path from ModuleLines, whichever way they
// came: a real program's lines must survive the file unchanged.
TEST_F(LineCache, AProgramsLinesSurviveTheFile) {
  std::string error;
  auto mod = Module::open(testing::fixture_path("fx_dwarf5_o2"), "", &error);
  ASSERT_NE(mod, nullptr) << error;
  ModuleLines lines = in_scope_lines(mod.get(), scope_);
  ASSERT_GT(lines.ranges.size(), 10u);
  std::string path = line_cache_path(dir_, mod->build_id(), scope_);
  ASSERT_NE(path, "");
  ASSERT_TRUE(write_line_cache(path, lines, &error)) << error;
  ModuleLines back;
  ASSERT_TRUE(read_line_cache(path, &back, &error)) << error;
  EXPECT_EQ(back, lines);
}

}  // namespace
}  // namespace andweorc::symbols
