// finish_guard.cc: see finish_guard.h.
#include "cli/finish_guard.h"

#include <unistd.h>

#include <iterator>

namespace andweorc::cli {
namespace {

volatile sig_atomic_t g_received = 0;

// Async-signal-safe: a flag, write(2), and for the second signal the
// default action (reset, then raise: it is not blocked while its handler
// runs under SA_NODEFER).
void on_signal(int sig) {
  if (g_received == 0) {
    g_received = sig;
    static const char kMsg[] =
        "andweorc: the program has ended; writing its profile (signal "
        "again to abandon it)\n";
    ssize_t n = write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
    (void)n;
    return;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

FinishGuard::FinishGuard() {
  g_received = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &sa, &old_[i]);
}

FinishGuard::~FinishGuard() {
  for (size_t i = 0; i < std::size(kStopSignals); ++i)
    sigaction(kStopSignals[i], &old_[i], nullptr);
}

int FinishGuard::received() { return g_received; }

}  // namespace andweorc::cli
