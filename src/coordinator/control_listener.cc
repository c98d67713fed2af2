// control_listener.cc: see control_listener.h.
#include "coordinator/control_listener.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace andweorc::coordinator {

std::unique_ptr<ControlListener> ControlListener::open_file(const char* path,
                                                            std::string* note) {
  if (path == nullptr || *path == '\0') return nullptr;
  int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *note = std::string("controls: cannot open ") + path +
            "; the live page's controls do not reach this process";
    return nullptr;
  }
  void* p = mmap(nullptr, runtime::kControlFileSize, PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    *note = std::string("controls: cannot map ") + path;
    return nullptr;
  }
  auto l =
      std::make_unique<ControlListener>(static_cast<runtime::ControlBlock*>(p));
  l->mapped_ = true;
  return l;
}

ControlListener::~ControlListener() {
  if (mapped_) munmap(block_, runtime::kControlFileSize);
}

bool ControlListener::pending() const {
  return !refused_ &&
         (__atomic_load_n(&block_->seq, __ATOMIC_ACQUIRE) != seen_ ||
          __atomic_load_n(&block_->probe_seq, __ATOMIC_ACQUIRE) != probe_seen_);
}

bool ControlListener::refuse_version(std::string* refused) {
  // The tool is of another version: its commands would be misread.
  refused_ = true;
  if (refused)
    *refused =
        "controls: the control file is not of this runtime's version; "
        "the live page's controls are ignored";
  return false;
}

std::optional<runtime::ControlCommand> ControlListener::take(
    std::string* refused) {
  if (refused_) return std::nullopt;
  runtime::ControlCommand c;
  switch (runtime::control_read(block_, seen_, &c)) {
    case runtime::ControlRead::kCommand:
      seen_ = c.seq;
      return c;
    case runtime::ControlRead::kBadHeader:
      refuse_version(refused);
      return std::nullopt;
    case runtime::ControlRead::kTorn:  // being written: next look
    case runtime::ControlRead::kNothing:
      return std::nullopt;
  }
  return std::nullopt;
}

void ControlListener::acknowledge(const runtime::ControlAck& ack) {
  runtime::control_acknowledge(block_, ack);
}

std::optional<runtime::ProbeCommand> ControlListener::take_probe(
    std::string* refused) {
  if (refused_) return std::nullopt;
  runtime::ProbeCommand c;
  switch (runtime::control_read_probe(block_, probe_seen_, &c)) {
    case runtime::ControlRead::kCommand:
      probe_seen_ = c.seq;
      return c;
    case runtime::ControlRead::kBadHeader:
      refuse_version(refused);
      return std::nullopt;
    case runtime::ControlRead::kTorn:
    case runtime::ControlRead::kNothing:
      return std::nullopt;
  }
  return std::nullopt;
}

void ControlListener::acknowledge_probe(const runtime::ProbeAck& ack) {
  runtime::control_acknowledge_probe(block_, ack);
}

bool ControlListener::poll_probe(std::string* refused) {
  std::optional<runtime::ProbeCommand> c = take_probe(refused);
  if (!c) return false;
  runtime::ProbeAck ack;
  if (probe_handler_ != nullptr) {
    ack = probe_handler_(*c);
  } else {
    ack.status = 1;
    std::strncpy(ack.error, "probes: not supported by this process's runtime",
                 sizeof ack.error - 1);
  }
  ack.seq = c->seq;
  ack.id = c->id;
  acknowledge_probe(ack);
  return true;
}

bool ControlLoop::poll() {
  if (listener == nullptr || !listener->pending()) return false;
  std::string refused;
  // A probe change first: it leaves the pause and the pin as they are.
  listener->poll_probe(&refused);
  if (!refused.empty() && note) note(refused);
  refused.clear();
  std::optional<runtime::ControlCommand> c = listener->take(&refused);
  if (!refused.empty() && note) note(refused);
  if (!c) return false;
  paused = c->paused != 0;
  ++applied;
  runtime::ControlAck ack = apply(*c);
  ack.seq = c->seq;
  listener->acknowledge(ack);
  return true;
}

bool ControlLoop::wait_while_paused(const bool* stop) {
  poll();
  while (paused) {
    if (__atomic_load_n(stop, __ATOMIC_ACQUIRE)) return false;
    sleep(slice_ns);
    poll();
  }
  return !__atomic_load_n(stop, __ATOMIC_ACQUIRE);
}

}  // namespace andweorc::coordinator
