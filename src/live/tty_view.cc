// tty_view.cc: see tty_view.h.
#include "live/tty_view.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <string.h>
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
// With keys: the terminal read and its modes before (set before g_keys_fd).
volatile sig_atomic_t g_keys_fd = -1;
termios g_saved_modes;

// Async-signal-safe: write(2), tcsetattr(3), signal(2) and raise(3) only.
// Shows the cursor and puts the terminal's modes back, then lets the
// signal do what it would have done without us (the default: end the
// tool).
void restore_and_reraise(int sig) {
  if (g_fd >= 0) {
    [[maybe_unused]] ssize_t n =
        ::write(g_fd, kShowCursor, sizeof(kShowCursor) - 1);
  }
  if (g_keys_fd >= 0) tcsetattr(g_keys_fd, TCSANOW, &g_saved_modes);
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
  std::lock_guard<std::mutex> lock(mu_);
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
  std::lock_guard<std::mutex> lock(mu_);
  if (!open_ || drawn_ == 0) return;
  write_all(fd_, fmt::format("\r\033[{}A\033[J", drawn_));
  drawn_ = 0;
}

void TtyView::close() {
  stop_keys_ = true;
  if (keys_.joinable()) keys_.join();
  std::lock_guard<std::mutex> lock(mu_);
  restore_terminal();
  if (!signals_restored_) {
    signals_restored_ = true;
    for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  if (!open_) return;
  open_ = false;
  write_all(fd_, kShowCursor);
  g_fd = -1;
}

void TtyView::restore_terminal() {
  if (keys_fd_ < 0) return;
  g_keys_fd = -1;
  tcsetattr(keys_fd_, TCSANOW, &saved_);
  ::close(keys_fd_);
  keys_fd_ = -1;
}

bool TtyView::enable_keys(std::function<void(char)> on_key,
                          std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  // The view's terminal by its name: a descriptor of our own to read (the
  // one we draw on may be open for writing only).
  const char* name = ttyname(fd_);
  int fd =
      name ? ::open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
  termios modes{};
  if (fd < 0 || tcgetattr(fd, &modes) != 0) {
    *error = std::string("--live-tty: cannot read keys from the terminal: ") +
             strerror(errno);
    if (fd >= 0) ::close(fd);
    return false;
  }
  saved_ = modes;
  g_saved_modes = modes;
  g_keys_fd = fd;
  // One key at a time, not echoed; Ctrl-C still a signal (ISIG kept).
  modes.c_lflag &= tcflag_t(~(ICANON | ECHO));
  modes.c_cc[VMIN] = 0;
  modes.c_cc[VTIME] = 0;
  if (tcsetattr(fd, TCSANOW, &modes) != 0) {
    *error = std::string("--live-tty: cannot set the terminal for keys: ") +
             strerror(errno);
    g_keys_fd = -1;
    ::close(fd);
    return false;
  }
  keys_fd_ = fd;
  on_key_ = std::move(on_key);
  keys_ = std::thread([this] { read_keys(); });
  return true;
}

void TtyView::read_keys() {
  while (!stop_keys_) {
    pollfd p{keys_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char c = 0;
    if (::read(keys_fd_, &c, 1) != 1) {
      if (p.revents & (POLLHUP | POLLERR)) return;
      continue;
    }
    if (c != 'q') {
      on_key_(c);
      continue;
    }
    // Dismissed: erase the frame, put everything back, read no more.
    std::lock_guard<std::mutex> lock(mu_);
    if (open_ && drawn_ > 0)
      write_all(fd_, fmt::format("\r\033[{}A\033[J", drawn_));
    drawn_ = 0;
    dismissed_ = true;
    restore_terminal();
    if (open_) {
      // The signal dispositions stay until close(): `run` may have its
      // forwarders installed over ours right now (child_process.cc), and
      // putting the old ones back here would undo those.
      open_ = false;
      g_fd = -1;
      write_all(fd_, kShowCursor);
    }
    return;
  }
}

}  // namespace andweorc::live
