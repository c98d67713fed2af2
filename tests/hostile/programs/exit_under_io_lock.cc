// exit_under_io_lock.cc: issue 12 item 6. A thread makes and frees labels
// in a loop; each label's binding is written to the raw file under the
// profiler's I/O lock, so the thread spends most of its time holding that
// lock (a signal arriving during the write runs its handler when the write
// returns, with the lock still held). Main then sends that very thread a
// signal whose handler calls _exit(7). An _exit that waits for the lock, or
// joins the collector (which waits for it), hangs forever; the program must
// end with status 7.
#include <andweorc/andweorc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

static std::atomic<long> g_labels{0};

static void on_usr1(int) { _exit(7); }

static void* make_labels(void*) {
  for (;;) {
    andweorc_label_t label;
    andweorc_label_init(&label, "request", "hostile");
    andweorc_label_destroy(&label);
    g_labels.fetch_add(1, std::memory_order_relaxed);
  }
  return nullptr;
}

int main() {
  printf("labelling\n");
  fflush(stdout);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, nullptr);
  pthread_t t;
  pthread_create(&t, nullptr, make_labels, nullptr);
  // Until the loop runs hot (a few thousand labels), then 10 ms more.
  while (g_labels.load(std::memory_order_relaxed) < 5000) usleep(1000);
  usleep(10000);
  pthread_kill(t, SIGUSR1);
  for (;;) pause();
}
