// control_channel.h: the tool's end of the live controls' channel
// (runtime/control_block.h, docs/live.md "Controls"): creates the shared
// control file, turns the page's requests (pause, resume, pin, unpin) into
// commands, and follows the coordinator's acknowledgements.
#ifndef ANDWEORC_LIVE_CONTROL_CHANNEL_H_
#define ANDWEORC_LIVE_CONTROL_CHANNEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

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

  // For the page and the stream: {requested: {paused, pin}, applied:
  // null | {seq, paused, pin, experiments, pid, latency_ms}, pending,
  // error}.
  nlohmann::ordered_json state() const;
  // The applied state in a few words, for the terminal view: "experiments
  // paused, pinned to main.cc:42 (1 line)"; "" before any
  // acknowledgement.
  std::string summary() const;

 private:
  mutable std::mutex mu_;
  runtime::ControlBlock* block_;
  bool mapped_ = false;
  std::string path_;
  runtime::ControlCommand desired_;  // what was last sent
  std::string desired_pin_;          // as the user wrote it
  runtime::ControlCommand applied_;  // as last acknowledged without error
  std::string applied_pin_;
  std::map<uint64_t, uint64_t> sent_ns_;  // seq -> when sent
  std::optional<Applied> last_;
  std::string error_;  // the last refusal of the coordinator
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_CONTROL_CHANNEL_H_
