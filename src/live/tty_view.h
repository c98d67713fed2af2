// tty_view.h: draws the compact live view (tty_render.h) on a terminal,
// redrawing in place: cursor hidden while it runs, shown again at the end,
// on destruction, and when a signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ends
// the tool while the view is up.
#ifndef ANDWEORC_LIVE_TTY_VIEW_H_
#define ANDWEORC_LIVE_TTY_VIEW_H_

#include <signal.h>

#include <memory>
#include <string>

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
  // dispositions back. Idempotent.
  void close();

 private:
  TtyView(int fd, size_t top) : fd_(fd), top_(top) {}
  int fd_;
  size_t top_;
  size_t drawn_ = 0;  // lines of the last frame, the cursor just below them
  bool open_ = true;
  struct sigaction old_[4] = {};
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_TTY_VIEW_H_
