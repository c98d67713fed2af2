// live_session.cc: see live_session.h.
#include "live/live_session.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <filesystem>

#include "andweorc/andweorc.h"
#include "live/live_json.h"
#include "live/live_page.h"

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
  if (options.tty) {
    s->tty_ = TtyView::open(options.tty_fd, options.tty_top, error);
    if (!s->tty_) return nullptr;
  }
  if (options.http) {
    s->server_ =
        LiveServer::start(*options.http, live_page(options.title), error);
    if (!s->server_) return nullptr;
  }
  return s;
}

std::string LiveSession::url() const { return server_ ? server_->url() : ""; }

void LiveSession::observe(double time_s,
                          const std::vector<profile::Experiment>& fresh,
                          ingest::ExperimentTail& tail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  model_.add_experiments(fresh, time_s);
  model_.add_point_totals(tail.point_totals(), time_s);
  model_.set_threads(tail.threads());
  std::map<std::string, uint64_t> by_function;
  for (const auto& batch : tail.take_samples()) {
    auto& [text, maps] = maps_[batch.pid];
    if (batch.maps && *batch.maps != text) {
      text = *batch.maps;
      maps = symbols::ProcessMaps::parse(text);
    }
    for (const ingest::RawSample& s : batch.samples)
      by_function[function_of(s.frames[0], maps)] += s.weight;
  }
  model_.add_samples(by_function, time_s);
  // The stream gets one line per period. The page also gets a new
  // experiment at once (the aim: visible within 2 s of its end, and the
  // page polls every 0.5 s).
  bool due = last_line_s_ < 0 || time_s - last_line_s_ >= o_.period_s;
  if (due || (server_ && !fresh.empty())) publish(time_s, "update", due);
}

// The sampled instruction's innermost function; "[module]" when it has no
// symbol (a stripped library), "[unknown]" outside any mapping.
std::string LiveSession::function_of(uint64_t address,
                                     const symbols::ProcessMaps& maps) {
  symbols::Location l = symbolizer_.symbolize(maps, address, false);
  if (!l.frames.empty() && !l.frames[0].function.empty())
    return l.frames[0].function;
  if (!l.module.empty())
    return "[" + std::filesystem::path(l.module).filename().string() + "]";
  return "[unknown]";
}

void LiveSession::publish(double time_s, const std::string& kind, bool line) {
  if (line) last_line_s_ = time_s;
  LiveSnapshot snap = model_.tick(time_s);
  bool final = kind == "final";
  if (stream_ && line) {
    // The dropped count as of this line; the final line's is exact.
    std::string line =
        snapshot_line(snapshot_json(snap, kind, stream_->dropped(), false));
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
        snapshot_json(snap, kind, 0, true)
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
