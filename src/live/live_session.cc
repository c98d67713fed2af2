// live_session.cc: see live_session.h.
#include "live/live_session.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "andweorc/andweorc.h"
#include "ingest/frame_chain.h"
#include "live/live_json.h"
#include "live/live_page.h"
#include "report/frame_name.h"

namespace andweorc::live {

std::unique_ptr<LiveSession> LiveSession::start(const LiveOptions& options,
                                                std::string* error) {
  std::unique_ptr<LiveSession> s(new LiveSession(options));
  if (options.json_path == "-") {
    s->stream_ = std::make_unique<LineStream>(1, false);
  } else if (!options.json_path.empty()) {
    int fd = ::open(options.json_path.c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      *error = "--live-json: cannot open " + options.json_path + ": " +
               strerror(errno);
      return nullptr;
    }
    s->stream_ = std::make_unique<LineStream>(fd, true);
  }
  // The controls, for the page and the terminal view's keys.
  if (options.join_control) {
    std::string why;
    if (!options.control_path.empty())
      s->controls_ = ControlChannel::open_existing(options.control_path, &why);
  } else if (!options.control_path.empty()) {
    s->controls_ = ControlChannel::create(options.control_path, error);
    if (!s->controls_) return nullptr;
  }
  if (options.tty) {
    s->tty_ = TtyView::open(options.tty_fd, options.tty_top, error);
    if (!s->tty_) return nullptr;
    LiveSession* self = s.get();
    if (options.tty_keys &&
        !s->tty_->enable_keys([self](char k) { self->on_key(k); }, error))
      return nullptr;
  }
  if (options.http) {
    ServerControls routes;
    LiveSession* self = s.get();
    routes.post = [self](const std::string& body) {
      return self->control(body);
    };
    routes.state = [self] { return self->controls_json(); };
    s->server_ = LiveServer::start(*options.http, live_page(options.title),
                                   error, std::move(routes));
    if (!s->server_) return nullptr;
  }
  return s;
}

std::string LiveSession::url() const { return server_ ? server_->url() : ""; }

std::string LiveSession::control_path() const {
  return controls_ ? controls_->path() : "";
}

double LiveSession::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       started_)
      .count();
}

void LiveSession::control_event(nlohmann::ordered_json event) {
  if (!stream_) return;
  nlohmann::ordered_json line;
  line["schema"] = 1;
  line["kind"] = "control";
  line["time_s"] = now_s();
  for (auto& [k, v] : event.items()) line[k] = v;
  stream_->push(snapshot_line(line));
}

void LiveSession::poll_controls() {
  if (!controls_) return;
  if (std::optional<ControlChannel::ProbeApplied> p = controls_->poll_probe()) {
    nlohmann::ordered_json e;
    e["event"] = p->ack.status == 0 ? "applied" : "refused";
    e["action"] = p->action;
    e["name"] = p->name;
    e["seq"] = p->ack.seq;
    e["pid"] = p->ack.pid;
    e["sites"] = p->ack.sites;
    if (p->ack.status != 0) e["error"] = p->ack.error;
    e["latency_ms"] = p->latency_ms;
    control_event(std::move(e));
  }
  std::optional<ControlChannel::Applied> a = controls_->poll();
  if (!a) return;
  nlohmann::ordered_json e;
  e["event"] = a->ack.status == 0 ? "applied" : "refused";
  e["seq"] = a->ack.seq;
  e["paused"] = a->ack.paused != 0;
  e["pin"] = a->ack.pin == runtime::PinKind::kNone
                 ? nlohmann::ordered_json()
                 : nlohmann::ordered_json(a->ack.pin_text);
  if (a->ack.status != 0) e["error"] = a->ack.error;
  e["latency_ms"] = a->latency_ms;
  control_event(std::move(e));
}

std::pair<int, std::string> LiveSession::control(const std::string& body) {
  auto answer = [](int status, nlohmann::ordered_json j) {
    return std::make_pair(
        status, j.dump(-1, ' ', false,
                       nlohmann::ordered_json::error_handler_t::replace));
  };
  nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
  if (req.is_discarded() || !req.is_object() || !req.contains("action") ||
      !req["action"].is_string())
    return answer(400, {{"ok", false},
                        {"error",
                         "a control request is a JSON object with "
                         "an \"action\""}});
  std::string action = req["action"].get<std::string>();
  std::string target;
  if (req.contains("target") && req["target"].is_string())
    target = req["target"].get<std::string>();
  if (finished_)
    return answer(409, {{"ok", false}, {"error", "the program has ended"}});
  if (action == "snapshot") {
    if (!o_.snapshot)
      return answer(
          400, {{"ok", false}, {"error", "snapshots are not available here"}});
    std::string path, error;
    bool ok;
    {
      std::lock_guard<std::mutex> lock(snapshot_mu_);
      ok = o_.snapshot(&path, &error);
    }
    {
      std::lock_guard<std::mutex> lock(events_mu_);
      if (ok)
        last_snapshot_ = path, snapshot_error_.clear();
      else
        snapshot_error_ = error;
    }
    nlohmann::ordered_json e{{"event", "snapshot"}};
    if (ok)
      e["path"] = path;
    else
      e["error"] = error;
    control_event(e);
    e["ok"] = ok;
    return answer(ok ? 200 : 500, e);
  }
  if (!controls_)
    return answer(400, {{"ok", false},
                        {"error",
                         "pause, pin and probes need experiments (this run "
                         "has none, or runs them end to end)"}});
  if (action == "probe" || action == "unprobe")
    return probe_control(action, req);
  std::string command_target = target;
  if (action == "period") {
    // The page's duration, as a multiple of the run's period.
    uint32_t multiple = 0;
    std::string error = "period: the sample period cannot be changed here";
    if (!o_.sample_period || !o_.sample_period(target, &multiple, &error)) {
      control_event({{"event", "refused"},
                     {"action", action},
                     {"target", target},
                     {"error", error}});
      return answer(400, {{"ok", false}, {"error", error}});
    }
    command_target = std::to_string(multiple);
  }
  ControlChannel::Sent sent = controls_->request(action, command_target);
  if (!sent.ok) return answer(400, {{"ok", false}, {"error", sent.error}});
  control_event({{"event", "sent"},
                 {"action", action},
                 {"target", target},
                 {"seq", sent.seq}});
  return answer(200, {{"ok", true}, {"seq", sent.seq}});
}

std::pair<int, std::string> LiveSession::probe_control(
    const std::string& action, const nlohmann::json& req) {
  auto answer = [](int status, nlohmann::ordered_json j) {
    return std::make_pair(
        status, j.dump(-1, ' ', false,
                       nlohmann::ordered_json::error_handler_t::replace));
  };
  auto text = [&req](const char* key) {
    return req.contains(key) && req[key].is_string()
               ? req[key].get<std::string>()
               : std::string();
  };
  const std::string name = text("name");
  const std::string target = text("target");
  std::string kind = text("kind");
  if (kind.empty()) kind = "progress";
  auto refuse = [&](const std::string& error) {
    control_event({{"event", "refused"},
                   {"action", action},
                   {"name", name},
                   {"target", target},
                   {"error", error}});
    return answer(400, {{"ok", false}, {"error", error}});
  };
  if (name.empty() || name.find_first_of("\t\r\n") != std::string::npos ||
      name.size() >= 200)
    return refuse(action +
                  ": a probe needs a \"name\" (no tabs or newlines, under 200 "
                  "characters)");
  ControlChannel::Sent sent;
  if (action == "unprobe") {
    sent = controls_->remove_probe(name);
  } else {
    if (kind != "progress" && kind != "latency" && kind != "trace")
      return refuse("probe: kind '" + kind +
                    "' is not one of \"progress\", \"latency\", \"trace\"");
    if (!o_.resolve_probe)
      return refuse("probe: probes are not available here");
    {
      // A point the program already has (annotated, or --progress): the
      // probe's visits would be added to its count. A live probe's own
      // point may be added again after its removal: it counts on.
      std::lock_guard<std::mutex> lock(mu_);
      if (kind != "trace" && model_.has_point(name) &&
          !controls_->had_probe(name))
        return refuse(
            "probe: the program already has a progress point "
            "named '" +
            name + "'; choose another name");
    }
    std::string lines, error;
    size_t sites = 0;
    if (!o_.resolve_probe(kind, name, target, &lines, &sites, &error))
      return refuse(error);
    sent = controls_->add_probe(name, kind, target, lines, sites);
  }
  if (!sent.ok) return refuse(sent.error);
  control_event({{"event", "sent"},
                 {"action", action},
                 {"name", name},
                 {"target", target},
                 {"seq", sent.seq}});
  return answer(200, {{"ok", true}, {"seq", sent.seq}});
}

void LiveSession::on_key(char key) {
  if (key == 's' && o_.snapshot) {
    control("{\"action\":\"snapshot\"}");
  } else if (key == 'p' && controls_) {
    bool paused = controls_->state()["requested"]["paused"].get<bool>();
    control(paused ? "{\"action\":\"resume\"}" : "{\"action\":\"pause\"}");
  }
}

int LiveSession::release_controls() {
  if (!controls_ || !o_.join_control) return 0;
  int left = controls_->restore(3000);
  poll_controls();
  return left;
}

std::string LiveSession::controls_json() {
  poll_controls();
  nlohmann::ordered_json j;
  j["available"] = controls_ != nullptr;
  j["snapshots"] = bool(o_.snapshot);
  if (controls_) {
    nlohmann::ordered_json state = controls_->state();
    for (auto& [k, v] : state.items()) j[k] = v;
  }
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    j["snapshot"] = last_snapshot_.empty()
                        ? nlohmann::ordered_json()
                        : nlohmann::ordered_json(last_snapshot_);
    j["snapshot_error"] = snapshot_error_;
  }
  return j.dump(-1, ' ', false,
                nlohmann::ordered_json::error_handler_t::replace);
}

void LiveSession::observe(double time_s,
                          const std::vector<profile::Experiment>& fresh,
                          ingest::ExperimentTail& tail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  poll_controls();
  model_.add_experiments(fresh, time_s);
  model_.add_point_totals(tail.point_totals(), time_s);
  model_.set_threads(tail.threads());
  // Each sample's stack, outermost frame first, and its innermost
  // function for the flat profile.
  StackCounts stacks;
  std::map<std::string, uint64_t> by_function;
  std::vector<std::string> stack;
  for (const auto& batch : tail.take_samples()) {
    ProcessView& p = processes_[batch.pid];
    if (batch.maps && *batch.maps != p.text) {
      p.text = *batch.maps;
      p.maps = symbols::ProcessMaps::parse(p.text);
      p.names.clear();
    }
    if (batch.label_tables && batch.label_tables->size() != p.label_tables) {
      p.label_tables = batch.label_tables->size();
      p.machinery = ingest::LabelResolver(*batch.label_tables);
    }
    for (const ingest::RawSample& s : batch.samples) {
      if (s.frames.empty()) continue;
      stack.clear();
      for (size_t i = s.frames.size(); i-- > 0;) {
        // A return address points after the call: the call is before it.
        if (p.machinery.is_machinery(i > 0 ? s.frames[i] - 1 : s.frames[i]))
          continue;
        const std::vector<std::string>& names = names_at(p, s.frames[i], i > 0);
        stack.insert(stack.end(), names.rbegin(), names.rend());
      }
      // Only label machinery: as the exports show an empty stack.
      if (stack.empty()) stack.push_back("[unknown]");
      by_function[stack.back()] += s.weight;
      stacks[stack] += s.weight;
    }
  }
  model_.add_samples(by_function, time_s);
  model_.add_stacks(stacks, time_s);
  // The stream gets one line per period. The page also gets a new
  // experiment at once (the aim: visible within 2 s of its end, and the
  // page polls every 0.5 s).
  bool due = last_line_s_ < 0 || time_s - last_line_s_ >= o_.period_s;
  if (due || (server_ && !fresh.empty())) publish(time_s, "update", due);
}

const std::vector<std::string>& LiveSession::names_at(ProcessView& p,
                                                      uint64_t address,
                                                      bool is_return_address) {
  // A bound on the cache: a long run's distinct addresses are the code's
  // call sites, but a process that maps new code again and again has more.
  constexpr size_t kMaxCached = 1 << 16;
  uint64_t key = address * 2 + (is_return_address ? 1 : 0);
  auto it = p.names.find(key);
  if (it != p.names.end()) return it->second;
  if (p.names.size() >= kMaxCached) p.names.clear();
  std::vector<std::string> names;
  for (const profile::Frame& f : ingest::frame_chain(
           symbolizer_.symbolize(p.maps, address, is_return_address)))
    names.push_back(report::frame_name(f));
  return p.names.emplace(key, std::move(names)).first->second;
}

void LiveSession::publish(double time_s, const std::string& kind, bool line) {
  if (line) last_line_s_ = time_s;
  LiveSnapshot snap = model_.tick(time_s);
  if (controls_) snap.controls = controls_->summary();
  if (o_.tty_keys && tty_) {
    // The keys, and the last snapshot the 's' key (or the page) wrote.
    std::lock_guard<std::mutex> lock(events_mu_);
    std::string keys =
        std::string("keys: ") + (controls_ ? "p pause/resume, " : "") +
        (o_.snapshot ? "s snapshot, " : "") + "q close this view";
    snap.controls = snap.controls.empty() ? keys : snap.controls + "; " + keys;
    if (!last_snapshot_.empty())
      snap.controls += "; snapshot " + last_snapshot_;
  }
  bool final = kind == "final";
  if (stream_ && line) {
    // The flame graphs in the first line, then in a line at least
    // window_s later (their "last N s" never overlap), and in the final
    // line: a stream of an hour's run stays a few MB.
    bool flame = final || last_flame_line_s_ < 0 ||
                 time_s - last_flame_line_s_ >= snap.samples_window_s;
    if (flame) last_flame_line_s_ = time_s;
    // The dropped count as of this line; the final line's is exact.
    std::string line = snapshot_line(
        snapshot_json(snap, kind, stream_->dropped(), false, flame));
    if (final)
      stream_->finish(std::move(line));
    else
      stream_->push(std::move(line));
  }
  // The terminal redraws at the stream's pace (once a period), not on
  // every experiment: a frame a second is what the eye can follow.
  if (tty_ && line) tty_->draw(snap, final);
  if (server_)
    server_->publish(
        snapshot_json(snap, kind, 0, true, true)
            .dump(-1, ' ', false,
                  nlohmann::ordered_json::error_handler_t::replace),
        final);
}

void LiveSession::program_ended() {
  std::lock_guard<std::mutex> lock(mu_);
  if (tty_) tty_->erase();
}

void LiveSession::finish(double time_s, const profile::Profile& written) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    poll_controls();  // an acknowledgement since the last poll
    finished_ = true;
    model_.set_experiments(written.experiments);
    model_.set_threads(written.threads);
    std::vector<ingest::RawPoint> totals;
    for (const profile::ProgressPoint& p : written.points) {
      bool latency = p.kind == profile::PointKind::kLatency;
      totals.push_back(ingest::RawPoint{
          uint32_t(latency ? ANDWEORC_KIND_BEGIN : ANDWEORC_KIND_THROUGHPUT),
          p.name, latency ? p.begins : p.visits});
    }
    model_.add_point_totals(totals, time_s);
    publish(time_s, "final", true);
    if (tty_) tty_->close();
  }
  if (server_) server_->linger(o_.linger_s);
}

}  // namespace andweorc::live
