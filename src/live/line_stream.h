// line_stream.h: writes lines to a file descriptor from its own thread, so
// whoever produces them never waits on the reader (`run --live-json`).
//
// push() queues a line and returns at once; when the reader is slow and
// `capacity` lines already wait, the line is dropped and counted instead.
// Only the stream loses lines: the live model and the profile are fed
// before and independently of it. finish() writes everything still queued
// plus a last line (the final state), waiting for the reader as long as
// it takes, then stops the thread.
#ifndef ANDWEORC_LIVE_LINE_STREAM_H_
#define ANDWEORC_LIVE_LINE_STREAM_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace andweorc::live {

class LineStream {
 public:
  // Writes to `fd`; closes it at the end when `owned`.
  LineStream(int fd, bool owned, size_t capacity = 4);
  ~LineStream();
  LineStream(const LineStream&) = delete;
  LineStream& operator=(const LineStream&) = delete;

  // False when the line was dropped (queue full, or the stream failed).
  bool push(std::string line);
  // Queues `last` regardless of the capacity and waits until all is
  // written (or writing failed). Idempotent; later pushes are dropped.
  void finish(std::string last);
  uint64_t dropped() const;
  // The first write error ("" while none), e.g. a closed pipe.
  std::string error() const;

 private:
  void loop();

  int fd_;
  bool owned_;
  size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool finishing_ = false;
  uint64_t dropped_ = 0;
  std::string error_;
  std::thread thread_;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_LINE_STREAM_H_
