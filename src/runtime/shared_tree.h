// shared_tree.h: the memory every process of a profiled process tree shares
// (docs/design.md, "Process trees").
//
// Under `andweorc run` the first process maps one MAP_SHARED segment before
// the program's main; every fork child inherits it at the same address.
// It holds the experiment state (delay_engine.h ExperimentShared), the
// selection and the published address table (address_table.h), an arena
// the coordinator builds the table in (so forked copies of the program see
// it, and their samples count towards it), and each process's progress-point
// totals, which the coordinator adds up. All fields are lock-free atomics;
// nothing here blocks, so handlers of every process may use it. A process
// that dies leaves its last totals behind (they still count) and holds no
// lock: nothing waits on another process.
//
// An exec'd image joins too (fork+exec, vfork+exec, posix_spawn): the
// segment and the arena are memfds that survive exec (not close-on-exec,
// kept away from the program's close/dup2 like the runtime's own
// descriptors), named in ANDWEORC_TREE_FDS. The new image maps them
// (tree_join_inherited), uses the tree's experiment state and points, and
// starts no coordinator of its own. Its addresses are not the first
// process's: it translates the coordinator's table into its own addresses,
// object by object, matched by GNU build-id (shared_tree_join.cc), so a
// line id means the same code in every process.
#ifndef ANDWEORC_RUNTIME_SHARED_TREE_H_
#define ANDWEORC_RUNTIME_SHARED_TREE_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/address_table.h"
#include "runtime/delay_engine.h"
#include "runtime/shared_tree_net.h"
#include "runtime/signal_safe.h"

namespace andweorc::runtime {

// The layout's version: an exec'd image of another build joins no tree
// whose segment it would misread. "andwtre3": the engine's state keeps the
// wrappers' check on its first line (delay_engine.h).
inline constexpr uint64_t kTreeMagic = 0x3365727477646e61ull;
// Virtual size only (MAP_NORESERVE): pages exist once the table uses them.
inline constexpr size_t kTreeArenaBytes = size_t(256) << 20;
inline constexpr int kTreePoints = 64;      // distinct points in a tree
inline constexpr int kTreeProcesses = 256;  // processes whose totals count
inline constexpr size_t kTreeNameMax = 112;

// A progress point of the tree, named by kind and name (a point registered
// in two processes is one point). state: 0 free, 1 being written, 2 ready.
struct TreePoint {
  uint32_t state;
  int32_t kind;
  uint32_t name_len;
  uint32_t reserved;
  char name[kTreeNameMax];
};

// One process's latest totals, indexed like the tree's points. pid 0: free.
inline constexpr size_t kTreeExeMax = 64;
struct TreeProcess {
  int32_t pid;
  uint32_t served;  // the last TreeSegment::publish_request it answered
  uint32_t exited;  // it published its final totals
  uint32_t named;   // exe is written (release), for `--split-points`
  uint64_t totals[kTreePoints];
  char exe[kTreeExeMax];  // the image's executable, file name only
};

// An object of the first process's address space with in-scope code,
// for translating its table into an exec'd image's addresses: code at
// address a of this object is at a - bias + (the image's bias) there.
inline constexpr int kTreeModules = 64;
inline constexpr size_t kBuildIdMax = 32;
struct TreeModule {
  uint64_t bias;    // load bias (dlpi_addr)
  uint64_t lo, hi;  // extent of its executable segments, biased
  uint32_t build_id_len;
  uint8_t build_id[kBuildIdMax];
};

// The main executable of an image that joined while the first process had
// no code of its own (coordinator_state 3): the coordinator builds its
// table from these files. state: 0 free, 1 being written, 2 ready.
inline constexpr int kTreeImages = 16;
inline constexpr size_t kTreeImagePathMax = 512;
struct TreeImage {
  uint32_t state;
  uint32_t path_len;
  char path[kTreeImagePathMax];
};

struct TreeSegment {
  uint64_t magic;
  TreeSegment* self;  // its address in the first process (and fork copies)
  int32_t root_pid;   // the process that made the segment (the coordinator's)
  uint32_t points_full;     // a point found no free entry (atomic)
  uint32_t processes_full;  // a process found no free slot (atomic)
  // The live page's sample period for every process of the tree, a
  // multiple of the run's (sample_period.h); 0 as 1 (atomic).
  uint32_t period_multiple;
  // Processes of the tree that exec'd (atomic). An exec'd image leaves the
  // tree (it starts a runtime of its own and does not pay the tree's
  // delays), so a pipe marked as the program's own may now lead outside:
  // every process forgets its marks when this changes (internal_fds.h).
  uint64_t execs;
  // The coordinator asks every process for fresh totals by bumping this
  // futex word (and waking the collectors that wait on it); each answers in
  // TreeProcess::served (tree_request_totals).
  alignas(64) uint32_t publish_request;
  alignas(64) ExperimentShared engine;
  alignas(64) SelectionShared selection;
  alignas(64) uint64_t arena_used;  // bytes handed out (atomic)
  uint64_t arena_size;
  char* arena;  // its own MAP_SHARED|MAP_NORESERVE mapping
  // The objects the coordinator's table covers (tree_publish_modules):
  // module_count is stored (release) once they are written.
  uint32_t module_count;
  // The first process's coordinator: 0 not known yet (building its table,
  // or no experiments), 1 it runs experiments on its table, 2 its table
  // could not be put in the arena (an image exec'd after 2 runs its own
  // experiments instead of joining), 3 it has no in-scope code itself (a
  // shell, a launcher) and runs the experiments of the programs it starts: each
  // exec'd image registers its executable (images[]), and the coordinator
  // builds a new table from all of them each time one appears
  // (table_generation; atomic).
  uint32_t coordinator_state;
  // Bumped (release) after selection.table was replaced by a table of a
  // new generation (coordinator_state 3): images translate it again.
  uint32_t table_generation;
  TreeModule modules[kTreeModules];
  TreeImage images[kTreeImages];
  uint32_t images_full;  // an image found no free entry (atomic)
  TreePoint points[kTreePoints];
  TreeProcess processes[kTreeProcesses];
  // IP endpoints of the tree's processes (shared_tree_net.h): a loopback
  // connection between two of them carries delays like a pipe.
  alignas(64) andweorc_net_table net;
};

// Maps the segment (start-up of the first process; not signal-safe;
// shared_tree_join.cc).
// Returns nullptr when it cannot (then the process runs alone, as before).
TreeSegment* tree_create();
// The segment, or nullptr when there is none (not under `andweorc run`,
// --no-follow-forks, or an exec'd image).
ANDWEORC_SIGNAL_SAFE TreeSegment* tree();
// Makes `t` this process's tree (shared_tree_join.cc, start-up only).
void tree_install(TreeSegment* t, bool joined, intptr_t arena_shift);
// In an exec'd image under `andweorc run`: maps the tree's segment named in
// ANDWEORC_TREE_FDS, if any and valid, and returns it (start-up only).
// nullptr: no tree to join (the process starts its own, as before).
TreeSegment* tree_join_inherited();
// This image joined a tree through exec (its pointers into the arena are
// not the first process's: tree_alloc gives nothing, tree_arena_local
// translates).
ANDWEORC_SIGNAL_SAFE bool tree_joined_by_exec();
// A pointer the first process stored into the arena, as seen here.
const void* tree_arena_local(const TreeSegment* t, const void* p);
// Coordinator (first process): records the objects of this process that
// hold code of `table`, so exec'd images can translate it (before the table
// is published).
void tree_publish_modules(TreeSegment* t, const AddressTable& table);
// The module of the ELF file at `path` placed at `bias` (its build-id and
// executable extent), for tree_publish_module_list; false when the file
// cannot be read or has no build-id. Ordinary code.
bool tree_module_of_file(const char* path, uint64_t bias, TreeModule* out);
// The same for objects the coordinator did not load itself (their files
// read offline, at the biases it chose: coordinator_state 3). At most
// kTreeModules; written before the table is published.
void tree_publish_module_list(TreeSegment* t, const TreeModule* modules,
                              uint32_t n);
// Exec'd image: starts a thread that waits for the coordinator's table,
// translates it into this image's addresses and publishes it here; under
// coordinator_state 3 it first registers the image's executable and then
// translates every new generation of the table.
void tree_start_follower();
// In a fork child: starts a follower of its own when the parent's was
// still running (its table not arrived yet, or coordinator_state 3), so
// that a worker forked early still gets the tables; from what the parent
// had translated (start-up of the child, like its collector).
void tree_follower_after_fork();
// Registers `path` (an image's main executable) in images[] unless it is
// there already. False when the list is full (images_full is set) or the
// path too long. Ordinary code (start-up of an exec'd image).
bool tree_register_image(TreeSegment* t, const char* path);
// The ready entries of images[], in registration order, into out[k]
// (paths up to kTreeImagePathMax); returns how many.
int tree_registered_images(const TreeSegment& t, char (*out)[kTreeImagePathMax],
                           int max);
// Detaches this process (its runtime stopped): its threads no longer use
// the segment's experiment state. Start-up/fork-child only.
void tree_forget();

// `bytes` (8-aligned) of zeroed shared memory from the arena, or nullptr
// when there is no segment or the arena is full. Never freed.
void* tree_alloc(TreeSegment* t, size_t bytes);
// Whether [p, p + bytes) lies in the segment's arena.
bool tree_holds(const TreeSegment* t, const void* p, size_t bytes);

// The tree's index of point (kind, name), registering it; -1 when the
// table is full. Signal-safe: bounded spins only.
ANDWEORC_SIGNAL_SAFE int tree_point_index(TreeSegment* t, int kind,
                                          const char* name, uint32_t len);
// This process's slot (claimed at first use; the claim is forgotten in a
// fork child, which claims its own, and names it with the image's
// executable); nullptr when all are taken.
ANDWEORC_SIGNAL_SAFE TreeProcess* tree_my_process(TreeSegment* t);
// Collector: waits up to `ns` for a request for fresh totals (futex on
// publish_request; returns early when one comes) and returns the request
// number to answer after publishing (tree_served).
uint32_t tree_wait_for_request(TreeSegment* t, uint64_t ns);
// This process published its totals for request `n`; `final` once more at
// exit (then it is not waited for again).
ANDWEORC_SIGNAL_SAFE void tree_served(TreeSegment* t, uint32_t n, bool final);
// Coordinator: asks every other live process for fresh totals and waits (at
// most `max_wait_ns`, for processes killed meanwhile) until all answered.
// Returns how many did not answer in time.
int tree_request_totals(TreeSegment* t, int32_t self_pid, uint64_t max_wait_ns);

// In a fork child: forget the parent's slot and claim one of its own.
void tree_after_fork_child();
// A process of the tree is about to exec (see TreeSegment::execs).
ANDWEORC_SIGNAL_SAFE void tree_note_exec();

// Pure logic, unit-tested: the tree-wide total of point `index` made of
// every process's published total except `skip_pid`'s (whose fresh local
// count the caller adds instead).
uint64_t tree_total_except(const TreeSegment& t, int index, int32_t skip_pid);

// The file name of this image's executable (/proc/self/exe) into
// out[kTreeExeMax]; "" when unreadable. Signal-safe.
ANDWEORC_SIGNAL_SAFE void tree_exe_name(char* out);

}  // namespace andweorc::runtime

// For internal_fds.c: true once per change of the tree's exec count since
// this process last asked (then its marks are stale). Signal-safe.
extern "C" int andweorc_tree_exec_seen(void);
// For internal_fds.c: 1 when pid is this process or a live process of the
// tree (claimed a slot and did not exit, exec or give up profiling): a wake
// from it was paid for. Signal-safe.
extern "C" int andweorc_tree_has_pid(int pid);
// The same for a pid the caller knows is not its own (no getpid call).
extern "C" int andweorc_tree_has_other_pid(int pid);

#endif  // ANDWEORC_RUNTIME_SHARED_TREE_H_
