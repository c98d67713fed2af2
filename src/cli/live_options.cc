// live_options.cc: see live_options.h.
#include "cli/live_options.h"

#include <iostream>

namespace andweorc::cli {

void add_live_options(CLI::App* cmd, RunOptions* o) {
  auto* group = "Live view (docs/live.md)";
  cmd->add_option("--live", o->live_address,
                  "Serve a live page of the run on this machine: the "
                  "ranking, convergence, progress-point rates and sampling "
                  "profile, updated every second. Optional ADDR:PORT, "
                  "loopback only "
                  "(default 127.0.0.1 and a free port); the URL, with its "
                  "access token, is printed on standard error")
      ->expected(0, 1)
      ->type_name("[ADDR:PORT]")
      ->group(group);
  cmd->add_option("--live-json", o->live_json,
                  "Write the live state as JSON lines, about one a second, "
                  "to FILE or - (standard output); a slow reader loses "
                  "lines (counted in \"dropped\"), never the profile")
      ->type_name("FILE|-")
      ->group(group);
  cmd->add_flag("--live-tty", o->live_tty,
                "Show a compact live view on standard error, redrawn every "
                "second: experiments, convergence, progress-point rates, "
                "the top causal lines (--top) and the sampling profile of "
                "the last 10 s; replaces the status line. Standard error "
                "must be a terminal")
      ->group(group);
}

void note_live_options(CLI::App* cmd, RunOptions* o) {
  o->live = cmd->count("--live") > 0;
}

std::unique_ptr<live::LiveSession> start_live(
    const RunOptions& o, const std::vector<std::string>& command, bool* failed,
    std::string* error) {
  *failed = false;
  if (!o.live && o.live_json.empty() && !o.live_tty) return nullptr;
  live::LiveOptions lo;
  lo.json_path = o.live_json;
  lo.tty = o.live_tty;
  lo.tty_fd = 2;
  lo.tty_top = o.top;
  lo.title = command.empty() ? "" : command[0];
  for (size_t i = 1; i < command.size(); ++i) lo.title += " " + command[i];
  if (o.live) {
    lo.http = live::parse_listen_address(o.live_address, error);
    if (!lo.http) {
      *failed = true;
      return nullptr;
    }
  }
  auto session = live::LiveSession::start(lo, error);
  if (!session) {
    *failed = true;
    return nullptr;
  }
  if (o.live) std::cerr << "andweorc: live view at " << session->url() << "\n";
  return session;
}

}  // namespace andweorc::cli
