// ptrace_permission.cc: see ptrace_permission.h. The kernel's order
// (ptrace_may_access, then Yama): same-uid or CAP_SYS_PTRACE, a target that
// is not dumpable needs CAP_SYS_PTRACE, then Yama's scope; a traced thread
// cannot get a second tracer.
#include "attach/ptrace_permission.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace andweorc::attach {
namespace {

std::string status_field(const std::string& status, const std::string& key) {
  std::istringstream in(status);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return line.substr(key.size() + 1);
  return "";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int parent_of(int pid) {
  std::istringstream in(
      status_field(slurp("/proc/" + std::to_string(pid) + "/status"), "PPid"));
  int ppid = 0;
  in >> ppid;
  return ppid;
}

}  // namespace

PtraceFacts read_ptrace_facts(int pid) {
  PtraceFacts f;
  f.pid = pid;
  f.our_uid = long(getuid());
  f.is_self = pid == int(getpid());
  std::string self = slurp("/proc/self/status");
  {
    std::istringstream caps(status_field(self, "CapEff"));
    unsigned long long eff = 0;
    caps >> std::hex >> eff;
    f.cap_sys_ptrace = (eff >> 19) & 1;  // CAP_SYS_PTRACE
  }
  {
    std::istringstream yama(slurp("/proc/sys/kernel/yama/ptrace_scope"));
    int scope = -1;
    if (yama >> scope) f.yama_scope = scope;
  }
  if (pid <= 0) return f;
  std::string dir = "/proc/" + std::to_string(pid);
  std::string status = slurp(dir + "/status");
  if (status.empty()) return f;
  f.exists = true;
  {
    std::istringstream in(status_field(status, "Tgid"));
    int tgid = 0;
    in >> tgid;
    f.is_thread = tgid != 0 && tgid != pid;
  }
  f.zombie = status_field(status, "State").find('Z') != std::string::npos;
  {
    std::istringstream in(status_field(status, "TracerPid"));
    in >> f.tracer_pid;
  }
  {
    std::istringstream in(status_field(status, "Uid"));
    in >> f.target_uid[0] >> f.target_uid[1] >> f.target_uid[2];
  }
  // A process that is not dumpable (prctl PR_SET_DUMPABLE 0, setuid
  // programs) has its /proc files owned by root.
  struct stat st;
  if (stat(dir.c_str(), &st) == 0)
    f.target_dumpable = !(st.st_uid == 0 && f.target_uid[1] != 0);
  for (int p = parent_of(pid), guard = 0; p > 1 && guard < 4096;
       p = parent_of(p), ++guard) {
    if (p == int(getpid())) {
      f.is_descendant = true;
      break;
    }
  }
  return f;
}

std::string ptrace_refusal(const PtraceFacts& f) {
  const std::string pid = std::to_string(f.pid);
  if (!f.exists) return "no process " + pid;
  if (f.is_self) return "cannot attach to andweorc itself";
  if (f.is_thread)
    return pid + " is a thread, not a process; give its process id";
  if (f.zombie) return "process " + pid + " has exited";
  if (f.tracer_pid != 0)
    return "process " + pid + " is already traced by process " +
           std::to_string(f.tracer_pid) +
           " (a debugger or another tracer); detach it first";
  if (f.yama_scope == 3)
    return "ptrace is disabled on this system "
           "(kernel.yama.ptrace_scope = 3, which cannot be lowered without "
           "a reboot)";
  const bool same_uid = f.target_uid[0] == f.our_uid &&
                        f.target_uid[1] == f.our_uid &&
                        f.target_uid[2] == f.our_uid;
  if (!same_uid && !f.cap_sys_ptrace)
    return "process " + pid + " runs as uid " +
           std::to_string(f.target_uid[1]) + " and we run as uid " +
           std::to_string(f.our_uid) +
           ": attach as that user, or as root (CAP_SYS_PTRACE)";
  if (!f.target_dumpable && !f.cap_sys_ptrace)
    return "process " + pid +
           " is not dumpable (it called prctl(PR_SET_DUMPABLE, 0) or "
           "changed its credentials): only root (CAP_SYS_PTRACE) may attach";
  if (f.yama_scope == 2 && !f.cap_sys_ptrace)
    return "kernel.yama.ptrace_scope = 2 lets only root (CAP_SYS_PTRACE) "
           "attach; run as root, or lower it with "
           "`sysctl kernel.yama.ptrace_scope=1` (0 to let any process of "
           "the same user attach)";
  if (f.yama_scope == 1 && !f.cap_sys_ptrace && !f.is_descendant)
    return "kernel.yama.ptrace_scope = 1 lets a process trace only its own "
           "descendants; run as root (CAP_SYS_PTRACE), or allow it with "
           "`sysctl kernel.yama.ptrace_scope=0`";
  return "";
}

}  // namespace andweorc::attach
