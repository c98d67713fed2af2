// shared_tree_net.cc: the tree's table of IP endpoints and the questions
// the socket wrappers ask it (see shared_tree_net.h). Async-signal-safe:
// raw system calls, atomics and bounded waits only.
#include "runtime/shared_tree_net.h"

#include <netinet/in.h>
#include <string.h>

#include "runtime/internal_fds.h"
#include "runtime/shared_tree.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {
namespace {

constexpr uint64_t kFree = 0, kWriting = 1, kReady = 2;
enum Kind : uint64_t {
  kTcpListen = 1,
  kTcpConnecting = 2,  // connect announced, own port not known yet
  kTcpConnected = 3,
  kUdpBound = 4,
  kUdpConnected = 5,
  kTcpAccepted = 6,  // the accepting end of a connection of the tree
};

// How long an accept waits for a connect of the tree to its listener that
// has not returned yet (its process preempted): then the socket stays the
// outside world. Only while such a connect is announced. Generous: a loaded
// 2-core machine keeps a runnable process off the CPU for tens of ms, and
// a wrong answer lasts as long as the connection.
constexpr uint64_t kConnectWaitNs = 50 * 1000 * 1000;

// Without a tree: this process's own table (threads of one program).
andweorc_net_table g_local_table;

// Descriptors this process registered an entry for: close only looks in
// the table for these.
constexpr int kMaxFds = 65536;
uint64_t g_fd_bits[kMaxFds / 64];

// Ends of connections of the tree, by descriptor: this process's entry for
// it and its peer's, each as a reference (end_ref), 0 none or not found
// yet. A reference names an entry and its generation, so an entry freed
// and claimed again is never taken for the old one. Untouched pages of
// these arrays cost no memory.
uint32_t g_self_end[kMaxFds];
uint32_t g_peer_end[kMaxFds];

struct Endpoint {
  uint64_t a[2];  // IPv6 address (IPv4 as ::ffff:a.b.c.d), network order
  uint64_t port;
};

struct Snapshot {
  uint64_t state, meta, ports, local[2], peer[2];
};

ANDWEORC_SIGNAL_SAFE andweorc_net_table* table() {
  TreeSegment* t = tree();
  return t != nullptr ? &t->net : &g_local_table;
}

// Each entry point asks getpid once and hands the answer down (`self`).
ANDWEORC_SIGNAL_SAFE int my_pid() { return int(raw_syscall(SYS_getpid)); }

// The entry's process counts: this one, or a live process of the tree.
ANDWEORC_SIGNAL_SAFE bool live(int pid, int self) {
  return pid == self || andweorc_tree_has_other_pid(pid);
}

// An IPv4 or IPv6 socket address as an Endpoint; false for other families.
ANDWEORC_SIGNAL_SAFE bool to_endpoint(const sockaddr* sa, socklen_t len,
                                      Endpoint* e) {
  uint8_t b[16] = {};
  if (sa == nullptr || len < socklen_t(sizeof(sa_family_t))) return false;
  if (sa->sa_family == AF_INET && len >= socklen_t(sizeof(sockaddr_in))) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    b[10] = b[11] = 0xff;
    memcpy(b + 12, &in->sin_addr, 4);
    e->port = ntohs(in->sin_port);
  } else if (sa->sa_family == AF_INET6 &&
             len >= socklen_t(sizeof(sockaddr_in6))) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    memcpy(b, &in6->sin6_addr, 16);
    e->port = ntohs(in6->sin6_port);
  } else {
    return false;
  }
  memcpy(e->a, b, 16);
  return true;
}

// getsockname (local) or getpeername of fd as an Endpoint.
ANDWEORC_SIGNAL_SAFE bool endpoint_of(int fd, bool peer, Endpoint* e) {
  sockaddr_storage ss;
  socklen_t len = sizeof ss;
  long r = raw_syscall(peer ? SYS_getpeername : SYS_getsockname, fd, long(&ss),
                       long(&len));
  return r == 0 && to_endpoint(reinterpret_cast<sockaddr*>(&ss), len, e);
}

ANDWEORC_SIGNAL_SAFE int socket_type(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  long r = raw_syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, long(&type),
                       long(&len));
  return r == 0 ? type : -1;
}

ANDWEORC_SIGNAL_SAFE bool same_address(const uint64_t a[2],
                                       const uint64_t b[2]) {
  return a[0] == b[0] && a[1] == b[1];
}

// :: or 0.0.0.0: a listener on every address.
ANDWEORC_SIGNAL_SAFE bool unspecified(const uint64_t a[2]) {
  uint8_t b[16];
  memcpy(b, a, 16);
  static const uint8_t zero[16] = {};
  static const uint8_t v4any[16] = {0, 0, 0,    0,    0, 0, 0, 0,
                                    0, 0, 0xff, 0xff, 0, 0, 0, 0};
  return memcmp(b, zero, 16) == 0 || memcmp(b, v4any, 16) == 0;
}

// ::1 or 127.0.0.0/8.
ANDWEORC_SIGNAL_SAFE bool loopback(const uint64_t a[2]) {
  uint8_t b[16];
  memcpy(b, a, 16);
  static const uint8_t one[16] = {0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 1};
  static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return memcmp(b, one, 16) == 0 || (memcmp(b, v4, 12) == 0 && b[12] == 127);
}

ANDWEORC_SIGNAL_SAFE int meta_pid(uint64_t meta) {
  return int(int32_t(uint32_t(meta)));
}
ANDWEORC_SIGNAL_SAFE uint64_t meta_kind(uint64_t meta) {
  return (meta >> 32) & 0xff;
}
ANDWEORC_SIGNAL_SAFE int meta_fd(uint64_t meta) { return int(meta >> 40); }

// A consistent copy of a published entry; false when it is free, being
// written, or changed while we read it.
ANDWEORC_SIGNAL_SAFE bool snapshot(const andweorc_net_entry& e, Snapshot* s) {
  for (int tries = 0; tries < 4; ++tries) {
    uint64_t s1 = __atomic_load_n(&e.state, __ATOMIC_ACQUIRE);
    if ((s1 & 3) != kReady) return false;
    s->meta = __atomic_load_n(&e.meta, __ATOMIC_RELAXED);
    s->ports = __atomic_load_n(&e.ports, __ATOMIC_RELAXED);
    s->local[0] = __atomic_load_n(&e.local[0], __ATOMIC_RELAXED);
    s->local[1] = __atomic_load_n(&e.local[1], __ATOMIC_RELAXED);
    s->peer[0] = __atomic_load_n(&e.peer[0], __ATOMIC_RELAXED);
    s->peer[1] = __atomic_load_n(&e.peer[1], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    s->state = s1;
    if (__atomic_load_n(&e.state, __ATOMIC_RELAXED) == s1) return true;
  }
  return false;
}

// A reference to entry i as published in `state`: index + 1 in the low
// 11 bits, the generation's low 21 bits above.
constexpr uint32_t kRefIndexBits = 11;
static_assert(ANDWEORC_NET_ENDPOINTS < (1 << kRefIndexBits));
ANDWEORC_SIGNAL_SAFE uint32_t end_ref(int i, uint64_t state) {
  return uint32_t(state >> 2) << kRefIndexBits | uint32_t(i + 1);
}

// The entry `ref` names, while it is still published in that generation.
ANDWEORC_SIGNAL_SAFE andweorc_net_entry* end_entry(andweorc_net_table* t,
                                                   uint32_t ref) {
  int i = int(ref & ((1u << kRefIndexBits) - 1)) - 1;
  if (i < 0 || i >= ANDWEORC_NET_ENDPOINTS) return nullptr;
  uint64_t s = __atomic_load_n(&t->e[i].state, __ATOMIC_ACQUIRE);
  if ((s & 3) != kReady || end_ref(i, s) != ref) return nullptr;
  return &t->e[i];
}

ANDWEORC_SIGNAL_SAFE bool valid_fd(int fd) { return fd >= 0 && fd < kMaxFds; }

// Claims a free entry (state: being written) and returns its index; when
// none is free, one of a process that left the tree; else -1.
ANDWEORC_SIGNAL_SAFE int claim(andweorc_net_table* t, int self) {
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < ANDWEORC_NET_ENDPOINTS; ++i) {
      andweorc_net_entry& e = t->e[i];
      uint64_t s = __atomic_load_n(&e.state, __ATOMIC_ACQUIRE);
      if ((s & 3) == kReady && pass == 1) {
        Snapshot snap;
        if (!snapshot(e, &snap) || live(meta_pid(snap.meta), self)) continue;
      } else if ((s & 3) != kFree) {
        continue;
      }
      if (!__atomic_compare_exchange_n(&e.state, &s, (s & ~3ull) + 4 + kWriting,
                                       false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_RELAXED))
        continue;
      uint32_t used = __atomic_load_n(&t->used, __ATOMIC_RELAXED);
      while (used < uint32_t(i + 1) &&
             !__atomic_compare_exchange_n(&t->used, &used, uint32_t(i + 1),
                                          true, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED)) {
      }
      return i;
    }
  }
  __atomic_store_n(&t->full, 1, __ATOMIC_RELAXED);
  return -1;
}

ANDWEORC_SIGNAL_SAFE void set_fd_bit(int fd, bool on) {
  if (fd < 0 || fd >= kMaxFds) return;
  uint64_t mask = uint64_t(1) << (fd % 64);
  if (on)
    __atomic_or_fetch(&g_fd_bits[fd / 64], mask, __ATOMIC_RELAXED);
  else
    __atomic_and_fetch(&g_fd_bits[fd / 64], ~mask, __ATOMIC_RELAXED);
}

// Fills claimed entry i and publishes it; returns its reference.
ANDWEORC_SIGNAL_SAFE uint32_t publish(andweorc_net_table* t, int i, int self,
                                      int fd, uint64_t kind,
                                      const Endpoint& local,
                                      const Endpoint* peer) {
  andweorc_net_entry& e = t->e[i];
  uint64_t meta =
      uint64_t(uint32_t(self)) | kind << 32 | uint64_t(uint32_t(fd)) << 40;
  uint64_t ports = local.port | (peer != nullptr ? peer->port << 16 : 0);
  __atomic_store_n(&e.meta, meta, __ATOMIC_RELAXED);
  __atomic_store_n(&e.ports, ports, __ATOMIC_RELAXED);
  __atomic_store_n(&e.local[0], local.a[0], __ATOMIC_RELAXED);
  __atomic_store_n(&e.local[1], local.a[1], __ATOMIC_RELAXED);
  __atomic_store_n(&e.peer[0], peer != nullptr ? peer->a[0] : 0,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&e.peer[1], peer != nullptr ? peer->a[1] : 0,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&e.sent, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&e.received, 0, __ATOMIC_RELAXED);
  uint64_t s = (__atomic_load_n(&e.state, __ATOMIC_RELAXED) & ~3ull) | kReady;
  __atomic_store_n(&e.state, s, __ATOMIC_RELEASE);
  set_fd_bit(fd, true);
  return end_ref(i, s);
}

// Frees entry i if it is still the one this process published for fd.
ANDWEORC_SIGNAL_SAFE void release(andweorc_net_table* t, int i, int pid,
                                  int fd) {
  andweorc_net_entry& e = t->e[i];
  Snapshot snap;
  if (!snapshot(e, &snap) || meta_pid(snap.meta) != pid ||
      meta_fd(snap.meta) != fd)
    return;
  uint64_t s = __atomic_load_n(&e.state, __ATOMIC_ACQUIRE);
  if ((s & 3) == kReady)
    __atomic_compare_exchange_n(&e.state, &s, (s & ~3ull) + 4 + kFree, false,
                                __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

// Forgets every entry this process published for fd (a number used again:
// its old socket is gone).
ANDWEORC_SIGNAL_SAFE void forget_fd(andweorc_net_table* t, int self, int fd) {
  if (valid_fd(fd)) {
    __atomic_store_n(&g_self_end[fd], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&g_peer_end[fd], 0, __ATOMIC_RELAXED);
  }
  uint32_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < used && i < ANDWEORC_NET_ENDPOINTS; ++i)
    release(t, int(i), self, fd);
}

// Some socket of a live process of the tree is at `peer`, which the caller
// (local endpoint `self`) reached: a TCP listener, or a UDP socket.
ANDWEORC_SIGNAL_SAFE bool endpoint_in_tree(int self_pid, bool tcp,
                                           const Endpoint& peer,
                                           const Endpoint& self) {
  // A listener on every address only answers for addresses of this host:
  // loopback, or the one we connected from (a local connection's source).
  bool local = loopback(peer.a) || same_address(peer.a, self.a);
  andweorc_net_table* t = table();
  uint32_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < used && i < ANDWEORC_NET_ENDPOINTS; ++i) {
    Snapshot s;
    if (!snapshot(t->e[i], &s)) continue;
    uint64_t kind = meta_kind(s.meta);
    bool fits =
        tcp ? kind == kTcpListen : kind == kUdpBound || kind == kUdpConnected;
    if (!fits || (s.ports & 0xffff) != peer.port) continue;
    if (!same_address(s.local, peer.a) && !(local && unspecified(s.local)))
      continue;
    if (live(meta_pid(s.meta), self_pid)) return true;
  }
  return false;
}

// An accepted connection (local `self`, peer `peer`): 1 a connection of a
// live process of the tree (its entry's reference in *ref), 0 none, 2 none
// yet but a connect of the tree to this listener has not returned.
ANDWEORC_SIGNAL_SAFE int connection_in_tree(int self_pid, const Endpoint& self,
                                            const Endpoint& peer,
                                            uint32_t* ref) {
  andweorc_net_table* t = table();
  uint32_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
  bool announced = false;
  for (uint32_t i = 0; i < used && i < ANDWEORC_NET_ENDPOINTS; ++i) {
    Snapshot s;
    if (!snapshot(t->e[i], &s)) continue;
    uint64_t kind = meta_kind(s.meta);
    if (kind == kTcpConnected) {
      if ((s.ports & 0xffff) == peer.port && (s.ports >> 16) == self.port &&
          same_address(s.local, peer.a) && same_address(s.peer, self.a) &&
          live(meta_pid(s.meta), self_pid)) {
        *ref = end_ref(int(i), s.state);
        return 1;
      }
    } else if (kind == kTcpConnecting && !announced) {
      if ((s.ports >> 16) == self.port &&
          (same_address(s.peer, self.a) || unspecified(s.peer)) &&
          live(meta_pid(s.meta), self_pid))
        announced = true;
    }
  }
  return announced ? 2 : 0;
}

// The accepting end of the connection whose connecting end is `self`
// (its local endpoint is our peer and its peer us), or 0.
ANDWEORC_SIGNAL_SAFE uint32_t find_accepted_end(andweorc_net_table* t,
                                                const Snapshot& self) {
  uint64_t swapped = (self.ports >> 16) | (self.ports & 0xffff) << 16;
  uint32_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < used && i < ANDWEORC_NET_ENDPOINTS; ++i) {
    Snapshot s;
    if (snapshot(t->e[i], &s) && meta_kind(s.meta) == kTcpAccepted &&
        s.ports == swapped && same_address(s.local, self.peer) &&
        same_address(s.peer, self.local))
      return end_ref(int(i), s.state);
  }
  return 0;
}

// Adds n bytes written (or read) through fd to this process's end.
ANDWEORC_SIGNAL_SAFE void count(int fd, long n, bool sent) {
  if (n <= 0 || !valid_fd(fd)) return;
  uint32_t ref = __atomic_load_n(&g_self_end[fd], __ATOMIC_RELAXED);
  if (ref == 0) return;
  andweorc_net_entry* e = end_entry(table(), ref);
  if (e != nullptr)
    __atomic_add_fetch(sent ? &e->sent : &e->received, uint64_t(n),
                       __ATOMIC_RELAXED);
}

ANDWEORC_SIGNAL_SAFE void pause_briefly(int round) {
  if (round < 20) {
    raw_syscall(SYS_sched_yield);
    return;
  }
  timespec ts{0, 50 * 1000};
  raw_syscall(SYS_nanosleep, long(&ts), 0);
}

// An accepted connection of the tree: this end gets an entry of its own
// (to count its bytes), and knows its peer's.
ANDWEORC_SIGNAL_SAFE void record_accepted_end(int fd, int self_pid,
                                              const Endpoint& self,
                                              const Endpoint& peer,
                                              uint32_t peer_ref) {
  if (!valid_fd(fd)) return;
  andweorc_net_table* t = table();
  int i = claim(t, self_pid);
  if (i < 0) return;  // counted nowhere: writes to it pay first, as before
  uint32_t ref = publish(t, i, self_pid, fd, kTcpAccepted, self, &peer);
  __atomic_store_n(&g_peer_end[fd], peer_ref, __ATOMIC_RELAXED);
  __atomic_store_n(&g_self_end[fd], ref, __ATOMIC_RELAXED);
}

}  // namespace
}  // namespace andweorc::runtime

using namespace andweorc::runtime;

extern "C" {

ANDWEORC_SIGNAL_SAFE void andweorc_net_listened(int fd) {
  Endpoint local;
  if (!endpoint_of(fd, false, &local) || socket_type(fd) != SOCK_STREAM) return;
  andweorc_net_table* t = table();
  int self = my_pid();
  forget_fd(t, self, fd);
  int i = claim(t, self);
  if (i >= 0) publish(t, i, self, fd, kTcpListen, local, nullptr);
}

ANDWEORC_SIGNAL_SAFE void andweorc_net_bound(int fd) {
  Endpoint local;
  if (!endpoint_of(fd, false, &local) || socket_type(fd) != SOCK_DGRAM) return;
  andweorc_net_table* t = table();
  int self = my_pid();
  forget_fd(t, self, fd);
  int i = claim(t, self);
  if (i >= 0) publish(t, i, self, fd, kUdpBound, local, nullptr);
}

// Token: (entry of the announcement + 1) << 2 | 1 for TCP, 2 for UDP, 0
// for another socket type (nothing recorded).
ANDWEORC_SIGNAL_SAFE int andweorc_net_connect_begin(int fd,
                                                    const sockaddr* addr,
                                                    socklen_t len) {
  Endpoint peer;
  if (!to_endpoint(addr, len, &peer)) return -1;
  int type = socket_type(fd);
  if (type == SOCK_DGRAM) return 2;
  if (type != SOCK_STREAM) return 0;
  // Only a connection to this host can be accepted by the tree. Our own
  // address is not known before connect: a connect to it (not loopback)
  // goes unannounced, and its accept may find it outside if it wins the
  // race (docs/design.md).
  if (!loopback(peer.a) && !unspecified(peer.a)) return 1;
  andweorc_net_table* t = table();
  int self = my_pid();
  forget_fd(t, self, fd);
  int i = claim(t, self);
  if (i < 0) return 1;
  Endpoint none{{0, 0}, 0};
  publish(t, i, self, fd, kTcpConnecting, none, &peer);
  return (i + 1) << 2 | 1;
}

ANDWEORC_SIGNAL_SAFE void andweorc_net_connect_end(int fd, int token,
                                                   const sockaddr* addr,
                                                   socklen_t len, int ok) {
  if (token < 0) return;
  andweorc_net_table* t = table();
  int self = my_pid();
  int kind = token & 3;
  int announced = (token >> 2) - 1;
  Endpoint local, peer;
  bool known = ok && kind != 0 && endpoint_of(fd, false, &local) &&
               (endpoint_of(fd, true, &peer) || to_endpoint(addr, len, &peer));
  // A connection to another host: nothing of the tree is at its other end,
  // and its record would only take room.
  bool here = known && (loopback(peer.a) || same_address(peer.a, local.a));
  if (here) {
    // UDP: its bound record (or an earlier connect's) gives way to this one.
    if (kind == 2) forget_fd(t, self, fd);
    // Published before the announcement goes: an accept that saw neither
    // looks once more (connection_in_tree's caller).
    int i = claim(t, self);
    if (i >= 0) {
      uint32_t ref =
          publish(t, i, self, fd, kind == 1 ? kTcpConnected : kUdpConnected,
                  local, &peer);
      // The accepting end is found at the first write that asks for it.
      if (kind == 1 && valid_fd(fd))
        __atomic_store_n(&g_self_end[fd], ref, __ATOMIC_RELAXED);
    }
  }
  if (announced >= 0) release(t, announced, self, fd);
  andweorc_fd_mark(fd, here && endpoint_in_tree(self, kind == 1, peer, local));
}

ANDWEORC_SIGNAL_SAFE int andweorc_net_peer_in_tree(int fd) {
  Endpoint self, peer;
  if (!endpoint_of(fd, false, &self)) return -1;
  if (!endpoint_of(fd, true, &peer)) return 0;
  // Only accept asks (connect records its own), so fd is a TCP connection.
  // The peer's connect may not have returned yet (the connection is made
  // inside it): while it is announced, wait, boundedly, for its record.
  uint64_t deadline = 0;
  int self_pid = my_pid();
  uint32_t peer_ref = 0;
  for (int round = 0;; ++round) {
    int r = connection_in_tree(self_pid, self, peer, &peer_ref);
    if (r != 2) {
      // The record is published before the announcement goes: seeing
      // neither, look once more.
      if (r != 1 && connection_in_tree(self_pid, self, peer, &peer_ref) != 1)
        return 0;
      record_accepted_end(fd, self_pid, self, peer, peer_ref);
      return 1;
    }
    uint64_t now = monotonic_ns();
    if (deadline == 0) deadline = now + kConnectWaitNs;
    if (now >= deadline) return 0;
    pause_briefly(round);
  }
}

ANDWEORC_SIGNAL_SAFE int andweorc_net_recorded(int fd) {
  if (fd < 0 || fd >= kMaxFds) return 0;
  return int(
      (__atomic_load_n(&g_fd_bits[fd / 64], __ATOMIC_RELAXED) >> (fd % 64)) &
      1);
}

ANDWEORC_SIGNAL_SAFE void andweorc_net_count_sent(int fd, long n) {
  count(fd, n, true);
}

ANDWEORC_SIGNAL_SAFE void andweorc_net_count_received(int fd, long n) {
  count(fd, n, false);
}

ANDWEORC_SIGNAL_SAFE int andweorc_net_peer_unread(int fd) {
  if (!valid_fd(fd)) return -1;
  // Most descriptors asked (pipes, Unix sockets) have no end: one load.
  uint32_t self_ref = __atomic_load_n(&g_self_end[fd], __ATOMIC_RELAXED);
  if (self_ref == 0) return -1;
  andweorc_net_table* t = table();
  andweorc_net_entry* self = end_entry(t, self_ref);
  if (self == nullptr) return -1;
  uint64_t sent = __atomic_load_n(&self->sent, __ATOMIC_RELAXED);
  uint32_t peer_ref = __atomic_load_n(&g_peer_end[fd], __ATOMIC_RELAXED);
  andweorc_net_entry* peer = peer_ref != 0 ? end_entry(t, peer_ref) : nullptr;
  if (peer == nullptr) {
    // Connecting end: the accepting end's entry appears after accept.
    Snapshot mine;
    if (!snapshot(*self, &mine) || meta_kind(mine.meta) != kTcpConnected)
      return -1;
    peer_ref = find_accepted_end(t, mine);
    if (peer_ref == 0) return -1;
    __atomic_store_n(&g_peer_end[fd], peer_ref, __ATOMIC_RELAXED);
    peer = end_entry(t, peer_ref);
    if (peer == nullptr) return -1;
  }
  return sent > __atomic_load_n(&peer->received, __ATOMIC_RELAXED) ? 1 : 0;
}

ANDWEORC_SIGNAL_SAFE void andweorc_net_closed(int fd) {
  if (!andweorc_net_recorded(fd)) return;
  set_fd_bit(fd, false);
  forget_fd(table(), my_pid(), fd);
}

int andweorc_net_count_live(void) {
  andweorc_net_table* t = table();
  int self = my_pid(), n = 0;
  uint32_t used = __atomic_load_n(&t->used, __ATOMIC_ACQUIRE);
  for (uint32_t i = 0; i < used && i < ANDWEORC_NET_ENDPOINTS; ++i) {
    Snapshot s;
    if (snapshot(t->e[i], &s) && live(meta_pid(s.meta), self)) ++n;
  }
  return n;
}

int andweorc_net_was_full(void) {
  return int(__atomic_load_n(&table()->full, __ATOMIC_RELAXED));
}

}  // extern "C"
