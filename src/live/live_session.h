// live_session.h: one run's live outputs: the model, the JSON-lines stream
// (`--live-json`), the web page (`--live`) and the terminal view
// (`--live-tty`), published about once a second.
//
// The monitor thread of `run` calls observe() after each poll of the raw
// files (4 times a second); nothing here blocks it for long: the stream is
// written by its own thread (line_stream.h) and the page is served by the
// server's. The program itself never waits on any of it: it only writes
// its raw files.
#ifndef ANDWEORC_LIVE_LIVE_SESSION_H_
#define ANDWEORC_LIVE_LIVE_SESSION_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ingest/experiment_tail.h"
#include "ingest/label_resolver.h"
#include "ingest/raw_reader.h"
#include "live/control_channel.h"
#include "live/line_stream.h"
#include "live/live_model.h"
#include "live/live_server.h"
#include "live/tty_view.h"
#include "profile/profile.h"
#include "symbols/symbolizer.h"

namespace andweorc::live {

struct LiveOptions {
  std::string json_path;              // "-": standard output; "": none
  std::optional<ListenAddress> http;  // the page; nullopt: none
  std::string title;                  // the program, for the page
  bool tty = false;                   // the terminal view on tty_fd
  int tty_fd = 2;
  size_t tty_top = 10;  // causal lines in the terminal view, at most
  // Keys in the terminal view (p pause/resume, s snapshot, q close the
  // view): only where the program does not read the same terminal.
  bool tty_keys = false;
  double period_s = 1;  // between updates
  double linger_s = 3;  // waiting for a page to get the end
  // The live controls (docs/live.md "Controls"), with the page only:
  // the control file to create for the coordinator ("": no pause or pin,
  // e.g. a run without experiments) ...
  std::string control_path;
  // ... which exists already: a run followed by `attach` (a `run
  // --detached` session), whose own tool may send commands too. Without
  // the file: no pause, pin or probes.
  bool join_control = false;
  // ... and how to write a profile of the run so far: its path, or false
  // and *error (unset: no snapshot).
  std::function<bool(std::string* path, std::string* error)> snapshot;
  // ... and how the page's sample period ("4ms") becomes a multiple of the
  // run's (1..64), or false and *error (unset: the period is not
  // changeable) ...
  std::function<bool(const std::string& text, uint32_t* multiple,
                     std::string* error)>
      sample_period;
  // ... and how a dynamic probe from the page is resolved, as the command
  // line's option would be (kind "progress": --progress NAME=TARGET,
  // "latency": --latency NAME=TARGET, "trace": --trace TARGET): the
  // ANDWEORC_PROBES lines for the runtime and the number of addresses, or
  // false and *error (nothing is sent then). Unset: no probes.
  std::function<bool(const std::string& kind, const std::string& name,
                     const std::string& target, std::string* lines,
                     size_t* sites, std::string* error)>
      resolve_probe;
};

class LiveSession {
 public:
  // Opens the stream and starts the server; nullptr with *error when
  // either fails (nothing has run yet then).
  static std::unique_ptr<LiveSession> start(const LiveOptions& options,
                                            std::string* error);

  // The page's URL ("" without --live).
  std::string url() const;
  // The control file the runtime must be told of (ANDWEORC_CONTROL), ""
  // without controls.
  std::string control_path() const;
  // A control request from the page (a JSON body: {"action": "pause" |
  // "resume" | "pin" | "unpin" | "snapshot" | "probe" | "unprobe", "target":
  // "FILE:LINE" | name, and for probes "name" and "kind"}):
  // an HTTP status and a JSON answer. Each one is a "control" line of the
  // stream, as is each acknowledgement.
  std::pair<int, std::string> control(const std::string& body);
  // Leaving a run this session joined (LiveOptions::join_control): its
  // probes removed, a pause or pin it sent undone (ControlChannel::
  // restore). The number of probes that could not be removed.
  int release_controls();
  // The controls' state (the page's "controls" object).
  std::string controls_json();
  // New experiments of one poll, and the tail's point totals and samples
  // (it must keep_samples()), at time_s since the run started; publishes
  // when period_s has passed since the last update.
  void observe(double time_s, const std::vector<profile::Experiment>& fresh,
               ingest::ExperimentTail& tail);
  // The program has ended: the terminal view's frame is erased, so the
  // tool's messages and then the final frame (finish()) take its place.
  void program_ended();
  // The last update, from the written profile's experiments and point
  // totals (complete, unlike the tail's, which may miss the last flush):
  // kind "final". Then
  // the stream is flushed and closed, and a connected page gets up to
  // linger_s to fetch it.
  void finish(double time_s, const profile::Profile& written);

 private:
  explicit LiveSession(LiveOptions options) : o_(std::move(options)) {}
  // A process's samples are named with its last maps snapshot.
  struct ProcessView {
    std::string text;
    symbols::ProcessMaps maps;
    // The label trampolines' code, hidden from stacks as in the written
    // profile (rebuilt when the tail has seen another table).
    size_t label_tables = 0;
    ingest::LabelResolver machinery{{}};
    // address * 2 + is_return_address -> names_at(); emptied with a new
    // snapshot, and when it grows past a bound.
    std::unordered_map<uint64_t, std::vector<std::string>> names;
  };
  // The functions one sampled address stands for, innermost first: the
  // written profile's frames for it (ingest/frame_chain.h), named as the
  // exports name them (report/frame_name.h).
  const std::vector<std::string>& names_at(ProcessView& p, uint64_t address,
                                           bool is_return_address);
  // A snapshot to the page, and to the stream when `line`.
  void publish(double time_s, const std::string& kind, bool line);
  // A new acknowledgement, if any, to the stream.
  void poll_controls();
  void control_event(nlohmann::ordered_json event);
  // A key of the terminal view.
  void on_key(char key);
  // action "probe" / "unprobe" (control()).
  std::pair<int, std::string> probe_control(const std::string& action,
                                            const nlohmann::json& req);
  double now_s() const;

  LiveOptions o_;
  std::mutex mu_;  // observe() and finish() come from different threads
  LiveModel model_;
  // Samples to functions and stacks: each process's maps as last recorded.
  symbols::Symbolizer symbolizer_;
  std::map<int, ProcessView> processes_;
  double last_line_s_ = -1;        // when the stream last got a line
  double last_flame_line_s_ = -1;  // ... a line with the flame graphs
  // Used by the server's threads: declared before server_, so destroyed
  // after it has stopped.
  std::atomic<bool> finished_{false};  // read by control() unlocked
  std::chrono::steady_clock::time_point started_ =
      std::chrono::steady_clock::now();
  std::unique_ptr<ControlChannel> controls_;
  std::mutex snapshot_mu_;  // one snapshot at a time
  std::mutex events_mu_;    // guards the two below
  std::string last_snapshot_;
  std::string snapshot_error_;
  std::unique_ptr<LineStream> stream_;
  std::unique_ptr<LiveServer> server_;
  std::unique_ptr<TtyView> tty_;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_LIVE_SESSION_H_
