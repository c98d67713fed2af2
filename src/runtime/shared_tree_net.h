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
 * atomics, bounded waits (a program's handler may call accept or close). */
#ifndef ANDWEORC_RUNTIME_SHARED_TREE_NET_H_
#define ANDWEORC_RUNTIME_SHARED_TREE_NET_H_

#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ANDWEORC_NET_ENDPOINTS 512

struct andweorc_net_entry {
  /* generation << 2 | 0 free, 1 being written, 2 ready (atomic). Every
   * change but "being written -> ready" moves the generation on. */
  uint64_t state;
  uint64_t meta;              /* pid (32 bits) | kind << 32 | fd << 40 */
  uint64_t ports;             /* local port | peer port << 16 (host order) */
  uint64_t local[2], peer[2]; /* IPv6 addresses, network order bytes */
  uint64_t reserved;
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
 * process or a live process of the tree, else 0; -1 when fd is not an IP
 * socket. May wait up to 50 ms for an announced connect to return. */
int andweorc_net_peer_in_tree(int fd);
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
