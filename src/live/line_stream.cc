// line_stream.cc: see line_stream.h.
#include "live/line_stream.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <utility>

namespace andweorc::live {

LineStream::LineStream(int fd, bool owned, size_t capacity)
    : fd_(fd),
      owned_(owned),
      capacity_(capacity),
      thread_([this] { loop(); }) {}

LineStream::~LineStream() {
  finish("");
  if (owned_) ::close(fd_);
}

bool LineStream::push(std::string line) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_ || !error_.empty() || queue_.size() >= capacity_) {
      ++dropped_;
      return false;
    }
    queue_.push_back(std::move(line));
  }
  cv_.notify_all();
  return true;
}

void LineStream::finish(std::string last) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_) return;
    finishing_ = true;
    if (!last.empty()) queue_.push_back(std::move(last));
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t LineStream::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

std::string LineStream::error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void LineStream::loop() {
  // A reader that closes its end (`| head`) must not kill the tool with
  // SIGPIPE: blocked in this thread only (ignoring it process-wide would
  // be inherited by the profiled program), a write fails with EPIPE and
  // the pending signal is taken below.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return finishing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // finishing, all written
    std::string line = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    // Whole lines in one write where the kernel allows: a reader never
    // sees half a line unless the line outgrows the pipe.
    size_t done = 0;
    std::string failure;
    while (done < line.size()) {
      ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n < 0 && errno == EPIPE) {
          timespec zero{0, 0};
          sigtimedwait(&pipe, nullptr, &zero);
        }
        failure = n < 0 ? strerror(errno) : "write returned 0";
        break;
      }
      done += size_t(n);
    }
    lock.lock();
    if (!failure.empty()) {
      // A reader that went away: stop writing, drop the rest (counted).
      error_ = failure;
      dropped_ += queue_.size() + 1;
      queue_.clear();
    }
  }
}

}  // namespace andweorc::live
