/* shared_tree_net.h: the IP endpoints (TCP, UDP) that processes of a tree
 * listen on, are bound to or connect from, so that a loopback connection
 * between two of them carries delays like a pipe (docs/design.md, "Process
 * trees"). SO_PEERCRED names the peer of a Unix socket only; for IP the
 * peer's endpoint (getpeername) is looked up in this table instead.
 *
 * The table lives in the tree's shared segment (shared_tree.h), or, with no
 * tree, in this process (client and server threads of one program). Each
 * entry: the registering pid and descriptor, a kind, the local endpoint and
 * (connections) the peer, addresses as IPv6 (IPv4 v4-mapped). Entries are
 * written by their owner only (claim, fill, publish) and read under a
 * per-entry sequence word, so nothing blocks and a reader never trusts a
 * half-written entry. An entry counts only while its pid is this process or
 * a live process of the tree (andweorc_tree_has_pid): a process killed
 * without closing leaves entries that match nothing. Bounded: when every
 * entry is taken, dead processes' entries are reused; if none, the socket
 * stays the outside world (conservative) and `full` is set.
 *
 * Classification happens once per descriptor, where it is made (listen,
 * bind, connect, accept); reads and writes only test the descriptor's mark
 * (internal_fds.h). Every function is async-signal-safe: raw system calls,
 * atomics, bounded waits (a program's handler may call accept or close).
 *
 * Unread bytes. A TCP connection between two processes of the tree has an
 * entry at each end (the connect's and the accept's), and each end counts
 * in its own entry the bytes it wrote and read through the wrappers. The
 * write rule (interpose_common.h) asks whether the peer still has bytes of
 * ours to read: for a Unix socket the kernel answers (SIOCOUTQ), for TCP
 * it cannot (SIOCOUTQ counts unacknowledged bytes, and loopback
 * acknowledges at once), so the answer is our `sent` minus the peer's
 * `received`. Bytes moved without the wrappers (sendfile, splice,
 * io_uring, raw syscalls) are not counted: unsent-but-uncounted makes the
 * writer pay first (as without counts); read-but-uncounted makes it keep
 * its debt to the next sample (documented in docs/design.md §5). */
#ifndef ANDWEORC_RUNTIME_SHARED_TREE_NET_H_
#define ANDWEORC_RUNTIME_SHARED_TREE_NET_H_

#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each connection of the tree takes two (one per end). */
#define ANDWEORC_NET_ENDPOINTS 1024

struct andweorc_net_entry {
  /* generation << 2 | 0 free, 1 being written, 2 ready (atomic). Every
   * change but "being written -> ready" moves the generation on. */
  uint64_t state;
  uint64_t meta;              /* pid (32 bits) | kind << 32 | fd << 40 */
  uint64_t ports;             /* local port | peer port << 16 (host order) */
  uint64_t local[2], peer[2]; /* IPv6 addresses, network order bytes */
  /* TCP connections: bytes the owner wrote to and read from its end
   * (atomic; added by the owner, read by the peer's process). */
  uint64_t sent, received;
};

struct andweorc_net_table {
  uint32_t used; /* entries [0, used) were ever claimed (atomic) */
  uint32_t full; /* a registration found no entry (atomic) */
  uint64_t reserved[7];
  struct andweorc_net_entry e[ANDWEORC_NET_ENDPOINTS];
};

/* After a successful listen: a TCP listener of this process. */
void andweorc_net_listened(int fd);
/* After a successful bind: a UDP socket of this process (others: nothing). */
void andweorc_net_bound(int fd);
/* Before connect: -1 when addr is not IPv4/IPv6 (then the caller treats the
 * socket as before); else a token for andweorc_net_connect_end. A TCP
 * connect is announced here (its peer, not yet its own port), so that the
 * peer's accept, which may return before our connect does, can wait for
 * the rest instead of guessing. */
int andweorc_net_connect_begin(int fd, const struct sockaddr* addr,
                               socklen_t len);
/* After connect (`ok`: it succeeded or is in progress): records the
 * connection and marks the descriptor internal when the peer is a listener
 * (TCP) or a socket (UDP) of this process or a live process of the tree. */
void andweorc_net_connect_end(int fd, int token, const struct sockaddr* addr,
                              socklen_t len, int ok);
/* An accepted TCP socket: 1 when its peer is a connection made by this
 * process or a live process of the tree (then this end is recorded too,
 * to count its bytes), else 0; -1 when fd is not an IP socket. May wait up
 * to 50 ms for an announced connect to return. */
int andweorc_net_peer_in_tree(int fd);
/* After a write or read of n > 0 bytes on fd (not MSG_PEEK): counted when
 * fd is a recorded end of a connection of the tree; else nothing (one
 * load). */
void andweorc_net_count_sent(int fd, long n);
void andweorc_net_count_received(int fd, long n);
/* fd is an end of a connection of the tree: 1 when its peer has not read
 * everything this process wrote to it, 0 when it has; -1 when that is not
 * known (not such a connection, the peer's end not recorded or gone). */
int andweorc_net_peer_unread(int fd);
/* Whether this process recorded an entry for fd (a bit test: close asks). */
int andweorc_net_recorded(int fd);
/* The program closed fd (or replaced it with dup2): forget its entries. */
void andweorc_net_closed(int fd);

/* For tests and notes: entries of live processes, and whether it was full. */
int andweorc_net_count_live(void);
int andweorc_net_was_full(void);

#ifdef __cplusplus
}
#endif

#endif /* ANDWEORC_RUNTIME_SHARED_TREE_NET_H_ */
