// ptrace_permission.h: whether we may ptrace a process, decided before
// touching it, and if not, why and which setting would allow it. The facts
// come from /proc (read_ptrace_facts); the decision is a pure function of
// them (ptrace_refusal), so each cause is tested without a kernel to match.
#ifndef ANDWEORC_ATTACH_PTRACE_PERMISSION_H_
#define ANDWEORC_ATTACH_PTRACE_PERMISSION_H_

#include <string>

namespace andweorc::attach {

struct PtraceFacts {
  int pid = 0;
  bool exists = false;
  bool is_self = false;         // the pid is our own process
  bool is_thread = false;       // a thread id, not a process (Tgid != pid)
  bool zombie = false;          // exited, not yet reaped
  int tracer_pid = 0;           // TracerPid: already traced (a debugger)
  long target_uid[3] = {};      // real, effective, saved (Uid:)
  long our_uid = 0;             // our real uid
  bool cap_sys_ptrace = false;  // in our effective set
  bool target_dumpable = true;  // /proc/PID owned by its uid, not root
  int yama_scope = -1;          // /proc/sys/kernel/yama/ptrace_scope; -1 absent
  bool is_descendant = false;   // we are an ancestor of the target
};

// Reads the facts for `pid` from /proc.
PtraceFacts read_ptrace_facts(int pid);

// "" when ptrace should be allowed; otherwise one line naming the cause
// and the setting that allows it (without "andweorc: ").
std::string ptrace_refusal(const PtraceFacts& f);

}  // namespace andweorc::attach

#endif  // ANDWEORC_ATTACH_PTRACE_PERMISSION_H_
