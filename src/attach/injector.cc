// injector.cc: see injector.h.
#include "attach/injector.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "symbols/symbolizer.h"

namespace andweorc::attach {
namespace {

// Below the red zone the System V ABI reserves under %rsp (128 bytes),
// with room to spare for whatever a signal frame in flight might need.
constexpr uint64_t kRedZone = 128 + 256;

// System calls in which a thread waits for the outside world: a thread
// blocked in one holds no lock of libc's (futex is not here: it may be
// waiting for malloc's).
bool blocking_syscall(long nr) {
  switch (nr) {
    case SYS_read:
    case SYS_readv:
    case SYS_poll:
    case SYS_select:
    case SYS_pause:
    case SYS_nanosleep:
    case SYS_accept:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_wait4:
    case SYS_rt_sigtimedwait:
    case SYS_rt_sigsuspend:
    case SYS_epoll_wait:
    case SYS_clock_nanosleep:
    case SYS_pselect6:
    case SYS_ppoll:
    case SYS_epoll_pwait:
    case SYS_accept4:
    case SYS_recvmmsg:
    case SYS_epoll_pwait2:
      return true;
    default:
      return false;
  }
}

std::vector<int> threads_of(int pid) {
  std::vector<int> tids;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d))
      if (int tid = atoi(e->d_name); tid > 0) tids.push_back(tid);
    closedir(d);
  }
  // The main thread first: it is the one a user expects to be borrowed.
  std::sort(tids.begin(), tids.end());
  return tids;
}

// SIGSEGV blocked or ignored in the thread: the fault our return causes
// would then reset its disposition to the default (force_sig_fault).
bool segv_blocked_or_ignored(int pid, int tid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" +
                   std::to_string(tid) + "/status");
  const unsigned long long bit = 1ULL << (SIGSEGV - 1);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SigBlk:", 0) == 0 || line.rfind("SigIgn:", 0) == 0) {
      unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      if (mask & bit) return true;
    }
  }
  return false;
}

struct Range {
  uint64_t start, end;
};

// Code of libc and the dynamic loader: a thread stopped there may hold
// their locks (malloc's arenas, the loader's lock).
std::vector<Range> unsafe_code(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/maps");
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<Range> out;
  const symbols::ProcessMaps maps = symbols::ProcessMaps::parse(text.str());
  for (const auto& m : maps.mappings()) {
    if (!m.executable) continue;
    std::string_view base = m.path;
    if (size_t slash = base.rfind('/'); slash != std::string_view::npos)
      base.remove_prefix(slash + 1);
    if (base.starts_with("libc.so") || base.starts_with("libc-") ||
        base.starts_with("ld-linux") || base.starts_with("libdl"))
      out.push_back({m.start, m.end});
  }
  return out;
}

std::vector<Range> g_unsafe;  // set by seize

}  // namespace

Injector::~Injector() {
  std::string ignored;
  release(&ignored);
  if (mem_fd_ >= 0) close(mem_fd_);
}

bool Injector::interrupt(int tid, std::string* error) {
  if (ptrace(PTRACE_SEIZE, tid, nullptr, nullptr) != 0) {
    *error = "ptrace(PTRACE_SEIZE, " + std::to_string(tid) +
             "): " + std::strerror(errno);
    return false;
  }
  if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) {
    *error = std::string("ptrace(PTRACE_INTERRUPT): ") + std::strerror(errno);
    ptrace(PTRACE_DETACH, tid, nullptr, nullptr);
    return false;
  }
  // A signal may be reported before the interrupt: it goes on to the
  // thread, and the interrupt's stop follows.
  for (;;) {
    int status = 0;
    if (waitpid(tid, &status, __WALL) != tid) {
      *error = std::string("waitpid: ") + std::strerror(errno);
      return false;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      *error = "the thread exited";
      return false;
    }
    if (!WIFSTOPPED(status)) continue;
    if ((status >> 16) == PTRACE_EVENT_STOP) return true;
    ptrace(PTRACE_CONT, tid, nullptr, (void*)(long)WSTOPSIG(status));
  }
}

void Injector::let_go(int tid) { ptrace(PTRACE_DETACH, tid, nullptr, nullptr); }

bool Injector::suitable(const user_regs_struct& regs, int tid) {
  if (segv_blocked_or_ignored(pid_, tid)) return false;
  if (long(regs.orig_rax) >= 0) return blocking_syscall(long(regs.orig_rax));
  for (const auto& r : g_unsafe)
    if (regs.rip >= r.start && regs.rip < r.end) return false;
  return true;
}

bool Injector::seize(int timeout_ms, std::string* error) {
  if (tid_ != 0) return true;
  g_unsafe = unsafe_code(pid_);
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string last_error;
  for (;;) {
    for (int tid : threads_of(pid_)) {
      if (!interrupt(tid, &last_error)) {
        if (errno == EPERM) {
          *error = last_error;
          return false;
        }
        continue;  // it exited meanwhile
      }
      user_regs_struct regs;
      if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs) != 0 ||
          !suitable(regs, tid)) {
        let_go(tid);
        continue;
      }
      // Extended state (x87/SSE/AVX...): the call may use any of it.
      std::vector<uint8_t> xstate(64 * 1024);
      iovec iov{xstate.data(), xstate.size()};
      bool fp_only = false;
      if (ptrace(PTRACE_GETREGSET, tid, (void*)NT_X86_XSTATE, &iov) == 0) {
        xstate.resize(iov.iov_len);
      } else if (ptrace(PTRACE_GETFPREGS, tid, nullptr, &saved_fp_) == 0) {
        xstate.clear();
        fp_only = true;
      } else {
        let_go(tid);
        continue;
      }
      fp_only_ = fp_only;
      tid_ = tid;
      saved_ = regs;
      saved_xstate_ = std::move(xstate);
      scratch_ = (regs.rsp - kRedZone) & ~uint64_t(15);
      if (mem_fd_ < 0) {
        std::string mem = "/proc/" + std::to_string(pid_) + "/mem";
        mem_fd_ = open(mem.c_str(), O_RDWR | O_CLOEXEC);
      }
      if (mem_fd_ < 0) {
        *error = std::string("cannot open the process's memory: ") +
                 std::strerror(errno);
        release(&last_error);
        return false;
      }
      return true;
    }
    if (threads_of(pid_).empty()) {
      *error = "the process exited";
      return false;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      *error = last_error.empty()
                   ? "no thread of the process came to a safe point (outside "
                     "libc and the dynamic loader, or blocked in a system "
                     "call) within " +
                         std::to_string(timeout_ms) + " ms"
                   : last_error;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

uint64_t Injector::put(const std::string& bytes) {
  scratch_ = (scratch_ - bytes.size() - 1) & ~uint64_t(15);
  std::string copy = bytes;
  copy.push_back('\0');
  if (pwrite(mem_fd_, copy.data(), copy.size(), off_t(scratch_)) !=
      ssize_t(copy.size()))
    return 0;
  return scratch_;
}

std::string Injector::read_string(uint64_t address, size_t max) {
  std::string out(max, '\0');
  ssize_t n = pread(mem_fd_, out.data(), max, off_t(address));
  if (n <= 0) return "";
  out.resize(size_t(n));
  if (size_t nul = out.find('\0'); nul != std::string::npos) out.resize(nul);
  return out;
}

std::optional<uint64_t> Injector::call(uint64_t fn, uint64_t a0, uint64_t a1,
                                       std::string* error) {
  if (tid_ == 0) {
    *error = "no thread is seized";
    return std::nullopt;
  }
  user_regs_struct regs = saved_;
  // At the callee's entry %rsp + 8 is 16-byte aligned; [%rsp] is the
  // return address: 0, so that returning faults and we see it.
  uint64_t sp = (scratch_ - 64) & ~uint64_t(15);
  sp -= 8;
  uint64_t zero = 0;
  if (pwrite(mem_fd_, &zero, sizeof zero, off_t(sp)) != ssize_t(sizeof zero)) {
    *error = std::string("cannot write the process's stack: ") +
             std::strerror(errno);
    return std::nullopt;
  }
  regs.rsp = sp;
  regs.rip = fn;
  regs.rdi = a0;
  regs.rsi = a1;
  regs.rax = 0;
  // Not in a system call any more: no restart may be applied to this call.
  regs.orig_rax = uint64_t(-1);
  if (ptrace(PTRACE_SETREGS, tid_, nullptr, &regs) != 0 ||
      ptrace(PTRACE_CONT, tid_, nullptr, nullptr) != 0) {
    *error = std::string("ptrace: ") + std::strerror(errno);
    return std::nullopt;
  }
  auto last_note = std::chrono::steady_clock::now();
  for (;;) {
    int status = 0;
    pid_t r = waitpid(tid_, &status, __WALL | WNOHANG);
    if (r == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (std::chrono::steady_clock::now() - last_note >
          std::chrono::seconds(10)) {
        last_note = std::chrono::steady_clock::now();
        fprintf(stderr,
                "andweorc: still waiting for the call in thread %d of "
                "process %d\n",
                tid_, pid_);
      }
      continue;
    }
    if (r != tid_) {
      *error = std::string("waitpid: ") + std::strerror(errno);
      return std::nullopt;
    }
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      tid_ = 0;
      *error = "the process exited during the call";
      return std::nullopt;
    }
    if (!WIFSTOPPED(status)) continue;
    int sig = WSTOPSIG(status);
    if ((status >> 16) != 0) {
      // PTRACE_EVENT_STOP: a group stop (SIGSTOP to the process) or a late
      // interrupt; carry on.
      ptrace(PTRACE_CONT, tid_, nullptr, nullptr);
      continue;
    }
    if (sig == SIGSEGV) {
      user_regs_struct after;
      ptrace(PTRACE_GETREGS, tid_, nullptr, &after);
      if (after.rip == 0) return after.rax;
      // A crash inside the call: the process gets its fault.
      *error = "the call crashed in the process (SIGSEGV)";
      ptrace(PTRACE_DETACH, tid_, nullptr, (void*)(long)SIGSEGV);
      tid_ = 0;
      return std::nullopt;
    }
    // The program's signal (or the profiler's SIGPROF): deliver it.
    ptrace(PTRACE_CONT, tid_, nullptr, (void*)(long)sig);
  }
}

bool Injector::release(std::string* error) {
  if (tid_ == 0) return true;
  bool ok = ptrace(PTRACE_SETREGS, tid_, nullptr, &saved_) == 0;
  if (fp_only_) {
    ok = ptrace(PTRACE_SETFPREGS, tid_, nullptr, &saved_fp_) == 0 && ok;
  } else {
    iovec iov{saved_xstate_.data(), saved_xstate_.size()};
    ok = ptrace(PTRACE_SETREGSET, tid_, (void*)NT_X86_XSTATE, &iov) == 0 && ok;
  }
  if (!ok) *error = std::string("restoring registers: ") + std::strerror(errno);
  ok = ptrace(PTRACE_DETACH, tid_, nullptr, nullptr) == 0 && ok;
  tid_ = 0;
  return ok;
}

}  // namespace andweorc::attach
