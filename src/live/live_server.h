// live_server.h: the local web page of `andweorc run --live`.
//
// Serves one self-contained page (live_page.h) and the latest live state
// as JSON, over HTTP (cpp-httplib), on a loopback address only: the
// profile is the only thing that leaves the program, and only to this
// machine. Every request must carry the random token the URL holds
// (?token=...), so another user of the machine, or a web page in the
// browser trying a local port, reads nothing.
#ifndef ANDWEORC_LIVE_LIVE_SERVER_H_
#define ANDWEORC_LIVE_LIVE_SERVER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace andweorc::live {

struct ListenAddress {
  std::string host;  // a numeric loopback address, e.g. 127.0.0.1 or ::1
  int port = 0;      // 0: any free port
};

// Parses "ADDR:PORT", "[ADDR]:PORT", "ADDR", or ":PORT" (default
// 127.0.0.1:0; "localhost" is 127.0.0.1). Refuses, with the reason in
// *error, anything that is not a loopback address or a port out of range.
std::optional<ListenAddress> parse_listen_address(const std::string& text,
                                                  std::string* error);

// 32 hex digits from the system's random source.
std::string random_token();

// The live controls' routes (docs/live.md "Controls"); unset: none.
struct ServerControls {
  // POST /control?token=TOKEN, the request's body (JSON): an HTTP status
  // and a JSON body.
  std::function<std::pair<int, std::string>(const std::string& body)> post;
  // The controls' state (a JSON object): GET /control, and the "controls"
  // key of /state.
  std::function<std::string()> state;
};

class LiveServer {
 public:
  // Binds and starts serving `page` at /?token=TOKEN and the state at
  // /state?token=TOKEN (and the controls' routes, when given). nullptr with
  // *error when the address is taken.
  static std::unique_ptr<LiveServer> start(const ListenAddress& address,
                                           std::string page, std::string* error,
                                           ServerControls controls = {});
  ~LiveServer();
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  // The page's URL, token included (printed for the user).
  std::string url() const;
  // The state /state returns from now on (a JSON object).
  void publish(std::string state_json, bool final);
  // Waits until a page has fetched the final state, or max_s, whichever
  // is first; at once when no page ever connected.
  void linger(double max_s);

  struct Impl;

 private:
  explicit LiveServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace andweorc::live

#endif  // ANDWEORC_LIVE_LIVE_SERVER_H_
