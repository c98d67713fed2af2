// tty_view.h: draws the compact live view (tty_render.h) on a terminal,
// redrawing in place: cursor hidden while it runs, shown again at the end,
// on destruction, and when a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ends
// the tool while the view is up. With keys (enable_keys), the terminal is
// read for single keys (no echo, no line editing) and put back as it was
// at the end, and by those signals too.
#ifndef ANDWEORC_LIVE_TTY_VIEW_H_
#define ANDWEORC_LIVE_TTY_VIEW_H_

#include <signal.h>
#include <termios.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "live/live_model.h"

namespace andweorc::live {

class TtyView {
 public:
  // nullptr and *error when fd is not a terminal (or TERM=dumb): the view
  // moves the cursor, which a file or a pipe would only record as junk.
  static std::unique_ptr<TtyView> open(int fd, size_t top, std::string* error);
  ~TtyView() { close(); }
  TtyView(const TtyView&) = delete;
  TtyView& operator=(const TtyView&) = delete;

  // Replaces the last frame with this snapshot's.
  void draw(const LiveSnapshot& s, bool final);
  // Erases the last frame (the program has ended: what the tool prints
  // next, then the final frame, go where it was).
  void erase();
  // Shows the cursor, leaves the last frame on screen, puts the signal
  // dispositions back (and the terminal's modes, with keys). Idempotent.
  void close();

  // Reads single keys from the view's terminal on a thread of its own and
  // hands each to `on_key`; 'q' closes the view instead (the frame is
  // erased, the cursor shown, the terminal put back; nothing more is
  // drawn, the final frame neither). false with *error when the terminal
  // cannot be read or set.
  bool enable_keys(std::function<void(char)> on_key, std::string* error);
  // 'q' was pressed: the view is closed.
  bool dismissed() const { return dismissed_; }

 private:
  TtyView(int fd, size_t top) : fd_(fd), top_(top) {}
  void read_keys();
  void restore_terminal();  // with mu_ held
  int fd_;
  size_t top_;
  std::mutex mu_;     // draw/erase/close from the session, 'q' from keys
  size_t drawn_ = 0;  // lines of the last frame, the cursor just below them
  bool open_ = true;
  struct sigaction old_[4] = {};
  bool signals_restored_ = false;
  // Keys: the terminal read (its own descriptor), its modes before.
  int keys_fd_ = -1;
  termios saved_{};
  std::function<void(char)> on_key_;
  std::atomic<bool> stop_keys_{false};
  std::atomic<bool> dismissed_{false};
  std::thread keys_;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_TTY_VIEW_H_
