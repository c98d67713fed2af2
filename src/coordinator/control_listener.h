// control_listener.h: the coordinator's end of the live controls' channel
// (runtime/control_block.h, docs/live.md "Controls"): takes the tool's
// commands (pause, pin; a dynamic probe to add or remove) and acknowledges
// what it applied.
//
// Only the coordinator thread uses it, between experiments and while
// paused; it never blocks: a command half-written by the tool is simply
// taken at the next look.
#ifndef ANDWEORC_COORDINATOR_CONTROL_LISTENER_H_
#define ANDWEORC_COORDINATOR_CONTROL_LISTENER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "runtime/control_block.h"

namespace andweorc::coordinator {

class ControlListener {
 public:
  // Maps the control file at `path` (the ANDWEORC_CONTROL setting); nullptr
  // without one (null or empty), or when it cannot be mapped (*note then
  // says why).
  static std::unique_ptr<ControlListener> open_file(const char* path,
                                                    std::string* note);
  // Over a block the caller owns (tests).
  explicit ControlListener(runtime::ControlBlock* block) : block_(block) {}
  ~ControlListener();
  ControlListener(const ControlListener&) = delete;
  ControlListener& operator=(const ControlListener&) = delete;

  // A command not yet taken is there (one load; cheap enough for every
  // sleep slice of an experiment).
  bool pending() const;
  // The new command, if whole and of this version. A block of another
  // version (or layout) is refused: nullopt, and *refused says so once.
  std::optional<runtime::ControlCommand> take(std::string* refused = nullptr);
  void acknowledge(const runtime::ControlAck& ack);

  // The probe half: a new probe command, if whole (same refusal rules).
  std::optional<runtime::ProbeCommand> take_probe(std::string* refused);
  void acknowledge_probe(const runtime::ProbeAck& ack);

  // What applies a probe command (runtime/probe_live.h; set by the
  // coordinator, a stand-in in tests). Without one a probe command is
  // refused ("not supported here").
  using ProbeHandler = runtime::ProbeAck (*)(const runtime::ProbeCommand&);
  void set_probe_handler(ProbeHandler h) { probe_handler_ = h; }
  // Takes, applies and acknowledges a probe command; true when one was.
  bool poll_probe(std::string* refused);

 private:
  bool refuse_version(std::string* refused);

  runtime::ControlBlock* block_;
  bool mapped_ = false;      // block_ is a mapping of ours
  uint64_t seen_ = 0;        // the last command taken
  uint64_t probe_seen_ = 0;  // the last probe command taken
  bool refused_ = false;
  ProbeHandler probe_handler_ = nullptr;
};

// How the experiment loop waits while paused: applies each new command
// (`apply` returns its acknowledgement) and sleeps `slice_ns` between
// looks through `sleep` (injected by tests), until not paused or *stop.
// Returns false when *stop ended the wait.
struct ControlLoop {
  ControlListener* listener = nullptr;
  std::function<runtime::ControlAck(const runtime::ControlCommand&)> apply;
  std::function<void(uint64_t ns)> sleep;
  // Told once when the block is of another version (then ignored).
  std::function<void(const std::string&)> note;
  uint64_t slice_ns = 50000000;  // 50 ms: a resume is seen within it
  bool paused = false;
  uint64_t applied = 0;  // commands applied so far

  // Takes and applies a new command, if any (a probe command first, which
  // changes no experiment state). True when a pause/pin command was applied.
  bool poll();
  // poll(), then waits while paused.
  bool wait_while_paused(const bool* stop);
};

}  // namespace andweorc::coordinator

#endif  // ANDWEORC_COORDINATOR_CONTROL_LISTENER_H_
