/* http_load.c: a small loopback HTTP/1.1 load generator for bench/real's
 * nginx workload (issue 15). Each of C threads keeps one keep-alive
 * connection to 127.0.0.1:PORT and sends GET PATH, one request at a time,
 * for SECONDS; prints "requests=N seconds=S throughput=R" (responses with
 * status 200 only). Loopback only: the address is fixed.
 *
 *   http_load PORT PATH SECONDS CONNECTIONS
 *
 * Each response with status 200 is also a progress point, "request"
 * (andweorc.h): it counts when http_load runs in the profiled tree with
 * the server (nginx.sh profile-tree) and does nothing otherwise.
 */
#define _GNU_SOURCE
#include <andweorc/andweorc.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int g_port;
static const char* g_path;
static double g_seconds;
static atomic_ulong g_ok, g_bad;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_local(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((unsigned short)g_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Reads one response (headers, then Content-Length bytes of body). Returns
 * its status, or -1 when the connection failed. */
static int read_response(int fd, char* buf, size_t cap) {
  size_t have = 0;
  char* end = NULL;
  while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
    if (have == cap) return -1;
    ssize_t n = read(fd, buf + have, cap - have);
    if (n <= 0) return -1;
    have += (size_t)n;
  }
  int status = 0;
  if (sscanf(buf, "HTTP/1.1 %d", &status) != 1) return -1;
  const char* cl = memmem(buf, (size_t)(end - buf), "Content-Length: ", 16);
  size_t body = cl ? strtoul(cl + 16, NULL, 10) : 0;
  size_t got = have - (size_t)(end + 4 - buf);
  while (got < body) {
    ssize_t n = read(fd, buf, cap < body - got ? cap : body - got);
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  return status;
}

static void* client(void* arg) {
  (void)arg;
  char req[512], buf[65536];
  int len = snprintf(req, sizeof req,
                     "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", g_path);
  double stop = now() + g_seconds;
  int fd = -1;
  while (now() < stop) {
    if (fd < 0 && (fd = connect_local()) < 0) {
      atomic_fetch_add(&g_bad, 1);
      usleep(10000);
      continue;
    }
    int status = -1;
    if (write(fd, req, (size_t)len) == len)
      status = read_response(fd, buf, sizeof buf);
    if (status == 200) {
      atomic_fetch_add(&g_ok, 1);
      ANDWEORC_PROGRESS("request");
    } else {
      atomic_fetch_add(&g_bad, 1);
      close(fd);
      fd = -1;
    }
  }
  if (fd >= 0) close(fd);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: http_load PORT PATH SECONDS CONNECTIONS\n");
    return 2;
  }
  g_port = atoi(argv[1]);
  g_path = argv[2];
  g_seconds = atof(argv[3]);
  int conns = atoi(argv[4]);
  if (g_port <= 0 || g_seconds <= 0 || conns <= 0 || conns > 256) {
    fprintf(stderr, "http_load: bad arguments\n");
    return 2;
  }
  pthread_t t[256];
  double start = now();
  for (int i = 0; i < conns; ++i) pthread_create(&t[i], NULL, client, NULL);
  for (int i = 0; i < conns; ++i) pthread_join(t[i], NULL);
  double s = now() - start;
  unsigned long ok = atomic_load(&g_ok);
  printf("requests=%lu seconds=%.3f throughput=%.1f errors=%lu\n", ok, s,
         ok / s, atomic_load(&g_bad));
  return ok > 0 ? 0 : 1;
}
