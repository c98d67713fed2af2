// control_channel.cc: see control_channel.h.
#include "live/control_channel.h"

#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace andweorc::live {
namespace {

uint64_t monotonic_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

const char* pin_kind_name(runtime::PinKind k) {
  switch (k) {
    case runtime::PinKind::kLine:
      return "line";
    case runtime::PinKind::kFunction:
      return "function";
    case runtime::PinKind::kNone:
      break;
  }
  return "none";
}

// Holds the control file's flock() while a command is written: two tools
// (a detached run's and an attach following it) may share the file.
class FileLock {
 public:
  explicit FileLock(int fd) : fd_(fd) {
    if (fd_ >= 0)
      while (flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~FileLock() {
    if (fd_ >= 0) flock(fd_, LOCK_UN);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

}  // namespace

bool parse_pin(const std::string& text, runtime::ControlCommand* c,
               std::string* error) {
  const std::string usage =
      "give FILE:LINE (e.g. main.cc:42; FILE may be a path suffix) or a "
      "function name";
  if (text.empty()) {
    *error = "pin: nothing to pin; " + usage;
    return false;
  }
  if (text.size() >= runtime::kControlTargetSize) {
    *error = "pin: '" + text.substr(0, 40) + "...' is too long";
    return false;
  }
  if (text.find_first_of(" \t\r\n") != std::string::npos) {
    *error = "pin: '" + text + "' has blanks; " + usage;
    return false;
  }
  size_t colon = text.rfind(':');
  // "ns::f" names a function: a line needs digits after its last ':'.
  bool line =
      colon != std::string::npos && colon + 1 < text.size() &&
      (colon == 0 || text[colon - 1] != ':') &&
      text.find_first_not_of("0123456789", colon + 1) == std::string::npos;
  if (line) {
    long n = std::strtol(text.c_str() + colon + 1, nullptr, 10);
    if (colon == 0 || n <= 0 || n > 100000000) {
      *error = "pin: '" + text + "' is not FILE:LINE with a line > 0; " + usage;
      return false;
    }
    c->pin = runtime::PinKind::kLine;
    c->pin_line = int32_t(n);
    std::string file = text.substr(0, colon);
    std::memset(c->pin_target, 0, sizeof c->pin_target);
    std::memcpy(c->pin_target, file.data(), file.size());
    return true;
  }
  if (colon != std::string::npos && text.find("::") == std::string::npos) {
    *error = "pin: '" + text + "' is neither FILE:LINE nor a function name; " +
             usage;
    return false;
  }
  c->pin = runtime::PinKind::kFunction;
  c->pin_line = 0;
  std::memset(c->pin_target, 0, sizeof c->pin_target);
  std::memcpy(c->pin_target, text.data(), text.size());
  return true;
}

std::unique_ptr<ControlChannel> ControlChannel::map_file(
    int fd, const std::string& path, std::string* error) {
  void* p = mmap(nullptr, runtime::kControlFileSize, PROT_READ | PROT_WRITE,
                 MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    *error = "live controls: cannot map " + path + ": " + strerror(errno);
    ::close(fd);
    return nullptr;
  }
  auto c =
      std::make_unique<ControlChannel>(static_cast<runtime::ControlBlock*>(p));
  c->mapped_ = true;
  c->fd_ = fd;
  c->path_ = path;
  return c;
}

std::unique_ptr<ControlChannel> ControlChannel::create(const std::string& path,
                                                       std::string* error) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ftruncate(fd, runtime::kControlFileSize) != 0) {
    *error = "live controls: cannot create " + path + ": " + strerror(errno);
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  std::unique_ptr<ControlChannel> c = map_file(fd, path, error);
  if (c) runtime::control_init(c->block_);
  return c;
}

std::unique_ptr<ControlChannel> ControlChannel::open_existing(
    const std::string& path, std::string* error) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 ||
      st.st_size < off_t(runtime::kControlFileSize)) {
    *error = "live controls: cannot open " + path + ": " +
             (fd < 0 ? strerror(errno) : "not a control file");
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  std::unique_ptr<ControlChannel> c = map_file(fd, path, error);
  if (!c) return nullptr;
  if (!runtime::control_header_ok(c->block_)) {
    *error = "live controls: " + path +
             " is not a control file of this version of andweorc";
    return nullptr;
  }
  // Start from the state the run is in.
  runtime::ControlCommand now;
  std::string pin;
  if (c->current_command(&now, &pin)) {
    c->desired_ = now;
    c->desired_pin_ = pin;
  }
  c->found_ = c->desired_;
  c->found_pin_ = c->desired_pin_;
  return c;
}

ControlChannel::ControlChannel(runtime::ControlBlock* block) : block_(block) {}

ControlChannel::~ControlChannel() {
  if (mapped_) munmap(block_, runtime::kControlFileSize);
  if (fd_ >= 0) ::close(fd_);
}

bool ControlChannel::current_command(runtime::ControlCommand* c,
                                     std::string* pin) const {
  for (int i = 0; i < 100; ++i) {
    if (!runtime::seqlock_read(&block_->seq, &block_->command, c)) continue;
    if (c->seq == 0) return false;
    c->pin_target[runtime::kControlTargetSize - 1] = '\0';
    pin->clear();
    if (c->pin == runtime::PinKind::kLine)
      *pin = std::string(c->pin_target) + ":" + std::to_string(c->pin_line);
    else if (c->pin == runtime::PinKind::kFunction)
      *pin = c->pin_target;
    return true;
  }
  return false;
}

ControlChannel::Sent ControlChannel::request(const std::string& action,
                                             const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  FileLock file_lock(fd_);
  Sent s;
  runtime::ControlCommand c = desired_;
  std::string pin_text = desired_pin_;
  // Another tool sharing the file may have sent since: its state is the
  // base (the command is the whole state).
  if (fd_ >= 0) {
    runtime::ControlCommand now;
    std::string pin;
    if (current_command(&now, &pin) && now.seq != desired_.seq) {
      c = now;
      pin_text = pin;
    }
  }
  if (action == "pause") {
    c.paused = 1;
  } else if (action == "resume") {
    c.paused = 0;
  } else if (action == "pin") {
    if (!parse_pin(target, &c, &s.error)) return s;
    pin_text = target;
  } else if (action == "unpin") {
    c.pin = runtime::PinKind::kNone;
    c.pin_line = 0;
    std::memset(c.pin_target, 0, sizeof c.pin_target);
    pin_text.clear();
  } else if (action == "period") {
    // A multiple of the run's period (the session converts the page's
    // duration, live_session.h).
    char* end = nullptr;
    unsigned long m = std::strtoul(target.c_str(), &end, 10);
    if (target.empty() || *end != '\0' || m < 1 ||
        m > runtime::kMaxControlPeriodMultiple) {
      s.error = "period: a multiple of the run's sample period from 1 to " +
                std::to_string(runtime::kMaxControlPeriodMultiple) + ", got '" +
                target + "'";
      return s;
    }
    c.period_multiple = uint32_t(m);
  } else {
    s.error = "unknown control '" + action +
              "' (pause, resume, pin, unpin, period, snapshot)";
    return s;
  }
  uint64_t now = monotonic_now_ns();
  s.seq = runtime::control_send(block_, c);
  c.seq = s.seq;
  sent_ns_[s.seq] = now;
  desired_ = c;
  desired_pin_ = pin_text;
  error_.clear();
  sent_command_ = true;
  s.ok = true;
  return s;
}

std::optional<ControlChannel::Applied> ControlChannel::poll() {
  std::lock_guard<std::mutex> lock(mu_);
  runtime::ControlAck ack;
  if (!runtime::control_read_ack(block_, &ack) || ack.seq == 0) return {};
  if (last_ && last_->ack.seq == ack.seq) return {};
  Applied a;
  a.ack = ack;
  if (auto it = sent_ns_.find(ack.seq); it != sent_ns_.end()) {
    a.latency_ms = double(int64_t(ack.time_ns - it->second)) / 1e6;
    // Commands before it will never be acknowledged on their own.
    sent_ns_.erase(sent_ns_.begin(), std::next(it));
  }
  if (ack.status != 0) {
    // The pin named nothing: the coordinator kept the previous one, and
    // so does what we ask for next.
    error_ = ack.error;
    if (ack.seq == desired_.seq) {
      desired_.pin = applied_.pin;
      desired_.pin_line = applied_.pin_line;
      std::memcpy(desired_.pin_target, applied_.pin_target,
                  sizeof desired_.pin_target);
      desired_pin_ = applied_pin_;
    }
  } else if (ack.seq == desired_.seq) {
    applied_ = desired_;
    applied_pin_ = desired_pin_;
  }
  last_ = a;
  return a;
}

ControlChannel::Sent ControlChannel::add_probe(const std::string& name,
                                               const std::string& kind,
                                               const std::string& target,
                                               const std::string& lines,
                                               size_t sites) {
  std::lock_guard<std::mutex> lock(mu_);
  FileLock file_lock(fd_);
  Sent s;
  if (probe_pending_seq_ != 0 || other_probe_pending()) {
    s.error =
        "probe: the previous probe change is not acknowledged yet; try again "
        "when it is";
    return s;
  }
  for (const auto& p : probes_)
    if (p.name == name && (p.state == "in" || p.state == "adding")) {
      s.error = "probe: a live probe named '" + name +
                "' is in already; remove it first";
      return s;
    }
  if (lines.size() >= runtime::kControlProbeTextSize) {
    s.error = "probe '" + name + "': " + std::to_string(sites) +
              " addresses do not fit the control page (" +
              std::to_string(lines.size()) + " bytes, at most " +
              std::to_string(runtime::kControlProbeTextSize - 1) +
              "); give a narrower target (FILE:LINE) or use --progress";
    return s;
  }
  runtime::ProbeCommand c;
  c.action = runtime::ProbeAction::kAdd;
  // Unique across the tools sharing the file: from the command's seq.
  c.id =
      uint32_t((__atomic_load_n(&block_->probe_seq, __ATOMIC_RELAXED) + 2) / 2);
  std::memcpy(c.lines, lines.data(), lines.size());
  probe_sent_ns_ = monotonic_now_ns();
  s.seq = runtime::control_send_probe(block_, c);
  probe_pending_seq_ = s.seq;
  probe_pending_id_ = c.id;
  LiveProbe p;
  p.id = c.id;
  p.name = name;
  p.kind = kind;
  p.target = target;
  p.sites = sites;
  p.state = "adding";
  probes_.push_back(p);
  s.ok = true;
  return s;
}

bool ControlChannel::wait_probe_ack(int timeout_ms) {
  for (int waited = 0; waited <= timeout_ms; waited += 10) {
    poll_probe();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (probe_pending_seq_ == 0) return true;
    }
    usleep(10000);
  }
  return false;
}

int ControlChannel::restore(int timeout_ms) {
  int left = 0;
  if (!wait_probe_ack(timeout_ms)) return 1;
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& p : probes_)
      if (p.state == "in") names.push_back(p.name);
  }
  for (const auto& name : names)
    if (!remove_probe(name).ok || !wait_probe_ack(timeout_ms)) ++left;
  std::lock_guard<std::mutex> lock(mu_);
  if (sent_command_) {
    FileLock file_lock(fd_);
    runtime::ControlCommand c = found_;
    uint64_t now = monotonic_now_ns();
    c.seq = runtime::control_send(block_, c);
    sent_ns_[c.seq] = now;
    desired_ = c;
    desired_pin_ = found_pin_;
  }
  return left;
}

bool ControlChannel::other_probe_pending() const {
  // A probe command of another tool sharing the file, not acknowledged yet
  // (its change would be overwritten). Called with the file locked.
  uint64_t seq = __atomic_load_n(&block_->probe_seq, __ATOMIC_ACQUIRE);
  if (seq == 0) return false;
  runtime::ProbeAck ack;
  for (int i = 0; i < 100; ++i)
    if (runtime::control_read_probe_ack(block_, &ack)) return ack.seq != seq;
  return true;
}

bool ControlChannel::had_probe(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& p : probes_)
    if (p.name == name && p.state != "refused") return true;
  return false;
}

ControlChannel::Sent ControlChannel::remove_probe(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  FileLock file_lock(fd_);
  Sent s;
  if (probe_pending_seq_ != 0 || other_probe_pending()) {
    s.error =
        "probe: the previous probe change is not acknowledged yet; try again "
        "when it is";
    return s;
  }
  LiveProbe* found = nullptr;
  for (auto& p : probes_)
    if (p.name == name && p.state == "in") found = &p;
  if (found == nullptr) {
    s.error = "unprobe: no live probe named '" + name + "' is in";
    return s;
  }
  runtime::ProbeCommand c;
  c.action = runtime::ProbeAction::kRemove;
  c.id = found->id;
  probe_sent_ns_ = monotonic_now_ns();
  s.seq = runtime::control_send_probe(block_, c);
  probe_pending_seq_ = s.seq;
  probe_pending_id_ = c.id;
  found->state = "removing";
  s.ok = true;
  return s;
}

std::optional<ControlChannel::ProbeApplied> ControlChannel::poll_probe() {
  std::lock_guard<std::mutex> lock(mu_);
  runtime::ProbeAck ack;
  if (!runtime::control_read_probe_ack(block_, &ack) || ack.seq == 0 ||
      ack.seq == probe_last_ack_)
    return {};
  probe_last_ack_ = ack.seq;
  ProbeApplied a;
  a.ack = ack;
  if (ack.seq == probe_pending_seq_) {
    a.latency_ms = double(int64_t(ack.time_ns - probe_sent_ns_)) / 1e6;
    probe_pending_seq_ = 0;
  }
  for (auto& p : probes_) {
    if (p.id != ack.id) continue;
    a.name = p.name;
    a.action = p.state == "removing" ? "unprobe" : "probe";
    p.pid = ack.pid;
    p.latency_ms = a.latency_ms;
    if (p.state == "adding") {
      p.state = ack.status == 0 ? "in" : "refused";
      p.error = ack.status == 0 ? "" : ack.error;
    } else if (p.state == "removing") {
      // A refused removal leaves the probe in.
      p.state = ack.status == 0 ? "removed" : "in";
      p.error = ack.status == 0 ? "" : ack.error;
    }
  }
  return a;
}

nlohmann::ordered_json ControlChannel::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::ordered_json j;
  j["requested"] = {
      {"paused", desired_.paused != 0},
      {"pin", desired_pin_.empty() ? nlohmann::ordered_json()
                                   : nlohmann::ordered_json(desired_pin_)},
      {"period_multiple", desired_.period_multiple}};
  if (last_) {
    const runtime::ControlAck& a = last_->ack;
    j["applied"] = {{"seq", a.seq},
                    {"paused", a.paused != 0},
                    {"pin_kind", pin_kind_name(a.pin)},
                    {"pin", a.pin == runtime::PinKind::kNone
                                ? nlohmann::ordered_json()
                                : nlohmann::ordered_json(a.pin_text)},
                    {"period_multiple", a.period_multiple},
                    {"experiments", a.experiments},
                    {"pid", a.pid},
                    {"latency_ms", last_->latency_ms}};
  } else {
    j["applied"] = nullptr;
  }
  j["pending"] = desired_.seq != 0 && (!last_ || last_->ack.seq < desired_.seq);
  j["error"] = error_;
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const auto& p : probes_)
    probes.push_back({{"id", p.id},
                      {"name", p.name},
                      {"kind", p.kind},
                      {"target", p.target},
                      {"sites", p.sites},
                      {"state", p.state},
                      {"error", p.error},
                      {"pid", p.pid},
                      {"latency_ms", p.latency_ms}});
  j["probes"] = std::move(probes);
  j["probe_pending"] = probe_pending_seq_ != 0;
  return j;
}

std::string ControlChannel::summary() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!last_) return "";
  const runtime::ControlAck& a = last_->ack;
  std::string out = a.paused ? "experiments paused" : "experiments running";
  out += a.pin == runtime::PinKind::kNone
             ? ", not pinned"
             : std::string(", pinned to ") + a.pin_text;
  if (a.period_multiple > 1)
    out += ", sampling every " + std::to_string(a.period_multiple) +
           " x the run's period";
  if (!error_.empty()) out += "; " + error_;
  return out;
}

}  // namespace andweorc::live
