// stop_wait.h: the stop flag of a tool thread that wakes up periodically
// (the progress display, the CPU-wait monitor): it sleeps until the next
// period or until stop(), whichever comes first.
#ifndef ANDWEORC_CLI_STOP_WAIT_H_
#define ANDWEORC_CLI_STOP_WAIT_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace andweorc::cli {

class StopWait {
 public:
  // Sleeps for `period` or until stop(); true when stopping.
  template <class Rep, class Period>
  bool wait_for(std::chrono::duration<Rep, Period> period) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, period, [this] { return stopping_; });
  }
  // Wakes the waiter; true for the first call only.
  bool stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return false;
      stopping_ = true;
    }
    cv_.notify_all();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace andweorc::cli

#endif  // ANDWEORC_CLI_STOP_WAIT_H_
