// exit_in_handler.cc: threads come and go (the profiler takes its I/O lock
// for each) while a SIGALRM handler calls _exit, which may interrupt any of
// them. Must end with status 7, never hang.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"

static void on_alarm(int) { _exit(7); }

static void* short_lived(void*) {
  burn_ms(1);
  return nullptr;
}

static void* churn(void*) {
  for (;;) {
    pthread_t t;
    if (pthread_create(&t, nullptr, short_lived, nullptr) == 0)
      pthread_join(t, nullptr);
  }
  return nullptr;
}

int main() {
  printf("churning\n");
  fflush(stdout);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sigaction(SIGALRM, &sa, nullptr);
  pthread_t threads[3];
  for (auto& t : threads) pthread_create(&t, nullptr, churn, nullptr);
  itimerval tv{{0, 0}, {0, 300000}};
  setitimer(ITIMER_REAL, &tv, nullptr);
  churn(nullptr);
}
