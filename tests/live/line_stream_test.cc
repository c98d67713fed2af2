// line_stream_test.cc: a slow reader loses lines (counted), never makes
// push() wait; lines that are written arrive whole and in order.
#include "live/line_stream.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <thread>

namespace andweorc::live {
namespace {

std::string line_of(int i) {
  return "{\"n\":" + std::to_string(i) + ",\"pad\":\"" +
         std::string(1000, 'x') + "\"}\n";
}

TEST(LineStream, ANonReadingReaderLosesLinesAndNeverBlocksThePusher) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const int kLines = 1000;  // 1 MB: far more than a pipe holds (64 KiB)
  LineStream stream(fds[1], false, 4);
  int accepted = 0;
  // Nobody reads yet: if push() waited on the reader this loop would
  // never end (the test would time out), not merely be slow.
  for (int i = 0; i < kLines; ++i) accepted += stream.push(line_of(i));
  EXPECT_EQ(stream.dropped(), uint64_t(kLines - accepted));
  EXPECT_GT(stream.dropped(), 0u);
  // The pipe holds about 64 lines, the queue 4, one is in write().
  EXPECT_LT(accepted, 100);

  std::string got;
  std::thread reader([&] {
    char buf[65536];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) got.append(buf, size_t(n));
  });
  stream.finish("{\"final\":true}\n");
  close(fds[1]);  // finish() ended the writer; the reader sees EOF
  reader.join();
  close(fds[0]);

  std::istringstream in(got);
  std::string line;
  int lines = 0, last = -1;
  while (std::getline(in, line)) {
    if (line == "{\"final\":true}") {
      ++lines;
      break;
    }
    int n = std::stoi(line.substr(5));
    EXPECT_GT(n, last) << "out of order";
    EXPECT_EQ(line + "\n", line_of(n)) << "a line arrived cut";
    last = n;
    ++lines;
  }
  EXPECT_EQ(lines, accepted + 1);  // every accepted line, then the final
  EXPECT_FALSE(std::getline(in, line));
}

TEST(LineStream, AReaderThatWentAwayIsAnErrorNotADeadTool) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);  // `| head` that has exited: writes raise SIGPIPE
  LineStream stream(fds[1], true, 4);
  stream.push("one\n");
  stream.finish("last\n");  // would kill the test with SIGPIPE if unhandled
  EXPECT_NE(stream.error(), "");
  EXPECT_GE(stream.dropped(), 1u);
  EXPECT_FALSE(stream.push("late\n"));
}

}  // namespace
}  // namespace andweorc::live
