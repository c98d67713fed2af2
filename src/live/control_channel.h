// control_channel.h: the tool's end of the live controls' channel
// (runtime/control_block.h, docs/live.md "Controls"): creates the shared
// control file, turns the page's requests (pause, resume, pin, unpin; add
// or remove a dynamic probe) into commands, and follows the coordinator's
// acknowledgements.
#ifndef ANDWEORC_LIVE_CONTROL_CHANNEL_H_
#define ANDWEORC_LIVE_CONTROL_CHANNEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/control_block.h"

namespace andweorc::live {

// "FILE:LINE" (a path suffix and a line > 0) pins a line; a name without
// ':' or blanks pins a function. Anything else: false and *error.
bool parse_pin(const std::string& text, runtime::ControlCommand* c,
               std::string* error);

class ControlChannel {
 public:
  // Creates (or truncates) the file at `path`, one page, and maps it.
  static std::unique_ptr<ControlChannel> create(const std::string& path,
                                                std::string* error);
  // Opens the control file of a run that is going on (`attach` to a `run
  // --detached` session): not truncated or initialized; refused when it is
  // not of this version. Another tool (the session's own) may write
  // commands too: every send takes an exclusive flock() on the file and
  // starts from the command in the block, so the command half keeps one
  // writer at a time and each command is still the whole state.
  static std::unique_ptr<ControlChannel> open_existing(const std::string& path,
                                                       std::string* error);
  // Over a block the caller owns (tests).
  explicit ControlChannel(runtime::ControlBlock* block);
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  const std::string& path() const { return path_; }

  struct Sent {
    bool ok = false;
    std::string error;  // a bad request: nothing was sent
    uint64_t seq = 0;
  };
  // action: "pause", "resume", "pin" (target: parse_pin's) or "unpin".
  Sent request(const std::string& action, const std::string& target);

  // An acknowledgement not reported before, with the time from its
  // command's sending to it (ms, both CLOCK_MONOTONIC).
  struct Applied {
    runtime::ControlAck ack;
    double latency_ms = -1;
  };
  std::optional<Applied> poll();

  // A dynamic probe from the page (docs/live.md "Probes from the page").
  // The tool resolved it (`lines`: ANDWEORC_PROBES lines for one point,
  // `sites` addresses). Refused, nothing sent, when its name is taken by a
  // live probe that is in (or on its way in), when the lines do not fit
  // the control page, or while the previous probe command is not yet
  // acknowledged (one probe change at a time: they are changes, not a
  // whole state).
  Sent add_probe(const std::string& name, const std::string& kind,
                 const std::string& target, const std::string& lines,
                 size_t sites);
  // Leaving a run this channel joined (open_existing) as it was: removes
  // the live probes it added that are in (one at a time, each waited for up
  // to `timeout_ms`) and, if it sent a pause or pin, sends back the state it
  // found. The number of probes left in (not acknowledged in time).
  int restore(int timeout_ms);
  // A live probe of this name was added (whatever its state now).
  bool had_probe(const std::string& name) const;
  // Removes the live probe `name` (refused when no such probe is in).
  Sent remove_probe(const std::string& name);
  // The probe acknowledgement not reported before.
  struct ProbeApplied {
    runtime::ProbeAck ack;
    std::string action;  // "probe" or "unprobe"
    std::string name;
    double latency_ms = -1;
  };
  std::optional<ProbeApplied> poll_probe();

  // For the page and the stream: {requested: {paused, pin}, applied:
  // null | {seq, paused, pin, experiments, pid, latency_ms}, pending,
  // error, probes: [{id, name, kind, target, sites, state, error, pid,
  // latency_ms}]}; a probe's state is "adding", "in", "refused",
  // "removing" or "removed".
  nlohmann::ordered_json state() const;
  // The applied state in a few words, for the terminal view: "experiments
  // paused, pinned to main.cc:42 (1 line)"; "" before any
  // acknowledgement.
  std::string summary() const;

 private:
  // The command in the block now (another tool may have sent it), as the
  // base of the next one; false when there is none or it is torn.
  bool current_command(runtime::ControlCommand* c, std::string* pin) const;
  bool other_probe_pending() const;
  bool wait_probe_ack(int timeout_ms);

  // open_existing: the state found, and whether this channel changed it.
  runtime::ControlCommand found_{};
  std::string found_pin_;
  bool sent_command_ = false;

  mutable std::mutex mu_;
  runtime::ControlBlock* block_;
  // Maps an open control file (closed on failure) into a channel that
  // owns the mapping and the descriptor: create's and open_existing's part.
  static std::unique_ptr<ControlChannel> map_file(int fd,
                                                  const std::string& path,
                                                  std::string* error);
  bool mapped_ = false;
  int fd_ = -1;  // for flock() around sends; -1 over a caller's block
  std::string path_;
  runtime::ControlCommand desired_;  // what was last sent
  std::string desired_pin_;          // as the user wrote it
  runtime::ControlCommand applied_;  // as last acknowledged without error
  std::string applied_pin_;
  std::map<uint64_t, uint64_t> sent_ns_;  // seq -> when sent
  std::optional<Applied> last_;
  std::string error_;  // the last refusal of the coordinator

  struct LiveProbe {
    uint32_t id = 0;
    std::string name, kind, target;
    size_t sites = 0;
    std::string state;  // adding, in, refused, removing, removed
    std::string error;
    int32_t pid = 0;
    double latency_ms = -1;
  };
  std::vector<LiveProbe> probes_;   // in the order added
  uint64_t probe_pending_seq_ = 0;  // unacknowledged probe command, or 0
  uint32_t probe_pending_id_ = 0;
  uint64_t probe_sent_ns_ = 0;
  uint64_t probe_last_ack_ = 0;  // the last probe ack reported
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_CONTROL_CHANNEL_H_
