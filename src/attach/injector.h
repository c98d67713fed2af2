// injector.h: calls a function inside another process, as a debugger's
// `call` does. One thread of the target is seized with ptrace
// (PTRACE_SEIZE + PTRACE_INTERRUPT: the other threads keep running), at a
// point where it holds no lock of libc or the dynamic loader; its
// registers (general and extended state) are saved, the call is made on
// its own stack below the red zone with a return address of 0 (the return
// faults, which ptrace reports and we swallow), and the registers are
// restored exactly before the thread is let go. x86-64 Linux only.
#ifndef ANDWEORC_ATTACH_INJECTOR_H_
#define ANDWEORC_ATTACH_INJECTOR_H_

#include <sys/user.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace andweorc::attach {

class Injector {
 public:
  explicit Injector(int pid) : pid_(pid) {}
  ~Injector();  // lets the thread go (restored) if still held
  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;

  // Seizes a thread of the process that is at a safe point: in a blocking
  // system call, or running outside libc and the dynamic loader (so it
  // holds none of their locks: dlopen and malloc take them). Threads are
  // tried in turn for up to `timeout_ms`. False with *error set.
  bool seize(int timeout_ms, std::string* error);

  // Copies `bytes` into the scratch area below the thread's red zone for
  // the next call; returns its address in the target.
  uint64_t put(const std::string& bytes);

  // Calls fn(a0, a1) in the seized thread and returns its %rax. Signals
  // the thread receives meanwhile are passed on to it. nullopt with *error
  // set if the process exited or the call crashed (then the process has
  // received the fault, as it would have without us).
  std::optional<uint64_t> call(uint64_t fn, uint64_t a0, uint64_t a1,
                               std::string* error);

  // Reads a NUL-terminated string of at most `max` bytes at `address`.
  std::string read_string(uint64_t address, size_t max = 512);

  // Restores the saved registers and lets the thread go. Idempotent.
  bool release(std::string* error);

  int tid() const { return tid_; }

 private:
  bool suitable(const user_regs_struct& regs, int tid);
  bool interrupt(int tid, std::string* error);
  void let_go(int tid);

  int pid_;
  int tid_ = 0;  // the seized thread, 0 when none
  int mem_fd_ = -1;
  user_regs_struct saved_{};
  std::vector<uint8_t> saved_xstate_;  // NT_X86_XSTATE
  user_fpregs_struct saved_fp_{};      // when XSTATE is not available
  bool fp_only_ = false;
  uint64_t scratch_ = 0;  // next free byte going down from the red zone
};

}  // namespace andweorc::attach

#endif  // ANDWEORC_ATTACH_INJECTOR_H_
