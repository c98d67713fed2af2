/* mc_load.c: a small memcached load generator for bench/real (loopback only).
 *
 *   mc_load [-p PORT] [-t THREADS] [-d DEPTH] [-n REQUESTS] [-s SECONDS]
 *           [-k KEYS] [-v VALUE_BYTES] [-w SET_PERCENT]
 *
 * Each thread opens one connection to 127.0.0.1:PORT and sends batches of
 * DEPTH pipelined text-protocol requests (gets, and SET_PERCENT% sets over
 * KEYS keys), then reads the DEPTH replies. A thread stops after REQUESTS
 * requests or SECONDS seconds, whichever comes first, so every run is
 * bounded. Prints "requests N seconds S requests_per_sec R" on stdout. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int port = 11311, threads = 2, depth = 16, keys = 10000,
           value_bytes = 100;
static int set_percent = 10;
static long long max_requests = 10000000;
static double max_seconds = 10;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int connect_server(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
    fprintf(stderr, "mc_load: cannot connect to 127.0.0.1:%d: %s\n", port,
            strerror(errno));
    exit(1);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

static void send_all(int fd, const char* buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      fprintf(stderr, "mc_load: write failed: %s\n",
              n < 0 ? strerror(errno) : "closed");
      exit(1);
    }
    buf += n;
    len -= (size_t)n;
  }
}

/* Reads replies until `want` terminal lines ("END", "STORED") were seen.
 * Values are all 'x', so a data line never looks like a terminal line. */
typedef struct {
  char buf[65536];
  size_t len;
} reader_t;

static void read_replies(int fd, reader_t* r, int want) {
  while (want > 0) {
    char* nl;
    while (want > 0 && (nl = memchr(r->buf, '\n', r->len)) != NULL) {
      size_t line = (size_t)(nl - r->buf) + 1;
      if ((line == 5 && memcmp(r->buf, "END", 3) == 0) ||
          (line == 8 && memcmp(r->buf, "STORED", 6) == 0))
        --want;
      else if (memcmp(r->buf, "ERROR", 5) == 0 ||
               memcmp(r->buf, "SERVER_ERROR", 12) == 0 ||
               memcmp(r->buf, "CLIENT_ERROR", 12) == 0) {
        fprintf(stderr, "mc_load: server said %.*s", (int)line, r->buf);
        exit(1);
      }
      memmove(r->buf, r->buf + line, r->len - line);
      r->len -= line;
    }
    if (want == 0) break;
    if (r->len == sizeof r->buf) {
      fprintf(stderr, "mc_load: reply line too long\n");
      exit(1);
    }
    ssize_t n = read(fd, r->buf + r->len, sizeof r->buf - r->len);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      fprintf(stderr, "mc_load: read failed: %s\n",
              n < 0 ? strerror(errno) : "closed");
      exit(1);
    }
    r->len += (size_t)n;
  }
}

typedef struct {
  int index;
  long long done;
} worker_t;

static double deadline;

static void* worker(void* arg) {
  worker_t* w = arg;
  int fd = connect_server();
  static __thread reader_t reader;
  char* value = malloc((size_t)value_bytes + 1);
  memset(value, 'x', (size_t)value_bytes);
  value[value_bytes] = 0;
  size_t cap = (size_t)depth * ((size_t)value_bytes + 64);
  char* out = malloc(cap);
  uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->index + 1);
  long long quota = max_requests / threads;
  while (w->done < quota && now() < deadline) {
    size_t len = 0;
    int batch = depth;
    if (quota - w->done < batch) batch = (int)(quota - w->done);
    for (int i = 0; i < batch; ++i) {
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17; /* xorshift64 */
      int key = (int)(rng % (uint64_t)keys);
      if ((int)((rng >> 32) % 100) < set_percent)
        len += (size_t)sprintf(out + len, "set key:%d 0 0 %d\r\n%s\r\n", key,
                               value_bytes, value);
      else
        len += (size_t)sprintf(out + len, "get key:%d\r\n", key);
    }
    send_all(fd, out, len);
    read_replies(fd, &reader, batch);
    w->done += batch;
  }
  close(fd);
  free(out);
  free(value);
  return NULL;
}

int main(int argc, char** argv) {
  int c;
  while ((c = getopt(argc, argv, "p:t:d:n:s:k:v:w:")) != -1) {
    switch (c) {
      case 'p':
        port = atoi(optarg);
        break;
      case 't':
        threads = atoi(optarg);
        break;
      case 'd':
        depth = atoi(optarg);
        break;
      case 'n':
        max_requests = atoll(optarg);
        break;
      case 's':
        max_seconds = atof(optarg);
        break;
      case 'k':
        keys = atoi(optarg);
        break;
      case 'v':
        value_bytes = atoi(optarg);
        break;
      case 'w':
        set_percent = atoi(optarg);
        break;
      default:
        fprintf(
            stderr,
            "usage: mc_load [-p PORT] [-t THREADS] [-d DEPTH] [-n REQUESTS] "
            "[-s SECONDS] [-k KEYS] [-v VALUE_BYTES] [-w SET_PERCENT]\n");
        return 2;
    }
  }
  if (threads < 1 || threads > 64 || depth < 1 || depth > 256 || keys < 1 ||
      value_bytes < 1 || value_bytes > 4096 || max_seconds <= 0 ||
      max_seconds > 3600 || max_requests < threads) {
    fprintf(stderr, "mc_load: an option is out of range\n");
    return 2;
  }
  pthread_t tid[64];
  worker_t w[64];
  double start = now();
  deadline = start + max_seconds;
  for (int i = 0; i < threads; ++i) {
    w[i] = (worker_t){.index = i, .done = 0};
    pthread_create(&tid[i], NULL, worker, &w[i]);
  }
  long long total = 0;
  for (int i = 0; i < threads; ++i) {
    pthread_join(tid[i], NULL);
    total += w[i].done;
  }
  double secs = now() - start;
  printf("requests %lld seconds %.3f requests_per_sec %.0f\n", total, secs,
         total / secs);
  return 0;
}
