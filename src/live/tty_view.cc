// tty_view.cc: see tty_view.h.
#include "live/tty_view.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "live/tty_render.h"

namespace andweorc::live {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr char kShowCursor[] = "\033[?25h";
constexpr char kHideCursor[] = "\033[?25l";

// The view's terminal, for the signal handler (one view per process).
volatile sig_atomic_t g_fd = -1;

// Async-signal-safe: write(2), signal(2) and raise(3) only. Shows the
// cursor, then lets the signal do what it would have done without us
// (the default: end the tool).
void restore_and_reraise(int sig) {
  if (g_fd >= 0) {
    [[maybe_unused]] ssize_t n =
        ::write(g_fd, kShowCursor, sizeof(kShowCursor) - 1);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Best effort: a write cut short just loses part of a frame; the next one
// redraws everything.
void write_all(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += size_t(n);
  }
}

}  // namespace

std::unique_ptr<TtyView> TtyView::open(int fd, size_t top, std::string* error) {
  const char* term = std::getenv("TERM");
  if (!isatty(fd) || (term && std::string_view(term) == "dumb")) {
    *error =
        "--live-tty needs standard error to be a terminal (it is redirected "
        "or TERM=dumb); use --live-json FILE for a stream to read elsewhere";
    return nullptr;
  }
  std::unique_ptr<TtyView> v(new TtyView(fd, top));
  g_fd = fd;
  // A signal that ends the tool must not leave the cursor hidden. While
  // the program runs, `run` forwards these signals to it (child_process.cc
  // saves and restores ours around that).
  struct sigaction sa {};
  sa.sa_handler = restore_and_reraise;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &sa, &v->old_[i]);
  write_all(fd, kHideCursor);
  return v;
}

void TtyView::draw(const LiveSnapshot& s, bool final) {
  if (!open_) return;
  TtyFrameOptions o;
  winsize ws{};
  if (ioctl(fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
    o.width = ws.ws_col;
    o.height = ws.ws_row;
  }
  o.top = top_;
  o.final = final;
  // Up to the first line of the last frame, erase to the end of the
  // screen, draw: one write, so the terminal shows no half frame.
  std::string out = "\r";
  if (drawn_ > 0) out += fmt::format("\033[{}A", drawn_);
  out += "\033[J";
  std::vector<std::string> lines = render_tty(s, o);
  for (const std::string& l : lines) out += l + "\n";
  write_all(fd_, out);
  drawn_ = lines.size();
}

void TtyView::erase() {
  if (!open_ || drawn_ == 0) return;
  write_all(fd_, fmt::format("\r\033[{}A\033[J", drawn_));
  drawn_ = 0;
}

void TtyView::close() {
  if (!open_) return;
  open_ = false;
  write_all(fd_, kShowCursor);
  for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  g_fd = -1;
}

}  // namespace andweorc::live
