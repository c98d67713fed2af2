// live_server.cc: see live_server.h.
#include "live/live_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

namespace andweorc::live {
namespace {

// The browser keeps a connection open between polls, and a worker serves
// one connection until it closes: the page's state poll, its control
// requests (a POST and the acknowledgement's poll can overlap the state
// poll) and a second tab need four. cpp-httplib's default pool would start
// eight.
constexpr size_t kWorkers = 4;

bool is_loopback(const std::string& host) {
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1)
    return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

// A closed browser tab makes a write to its socket raise SIGPIPE, which
// would end the tool (cpp-httplib does not ask send() to suppress it on
// Linux). A handler that does nothing turns it into EPIPE; unlike
// ignoring the signal, a handler is reset by exec, so the profiled
// program still gets the default.
void ignore_sigpipe(int) {}

}  // namespace

std::optional<ListenAddress> parse_listen_address(const std::string& text,
                                                  std::string* error) {
  ListenAddress a{"127.0.0.1", 0};
  std::string host = text, port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos) {
      *error = "--live: '" + text + "' lacks the ']' of [ADDR]:PORT";
      return std::nullopt;
    }
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') {
        *error = "--live: expected ':PORT' after ']' in '" + text + "'";
        return std::nullopt;
      }
      port = text.substr(close + 2);
    }
  } else if (size_t colon = text.rfind(':');
             colon != std::string::npos &&
             text.find(':') == colon) {  // one colon: ADDR:PORT or :PORT
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  if (host == "localhost") host = "127.0.0.1";
  if (!host.empty()) a.host = host;
  if (!is_loopback(a.host)) {
    *error = "--live serves only on this machine: '" + a.host +
             "' is not a loopback address (127.0.0.1 or ::1). From another "
             "machine, forward the port, e.g. ssh -L 8080:127.0.0.1:8080";
    return std::nullopt;
  }
  if (!port.empty()) {
    size_t used = 0;
    int p = -1;
    try {
      p = std::stoi(port, &used);
    } catch (const std::exception&) {
    }
    if (used != port.size() || p < 0 || p > 65535) {
      *error = "--live: '" + port + "' is not a port (0..65535)";
      return std::nullopt;
    }
    a.port = p;
  }
  return a;
}

std::string random_token() {
  std::random_device rd;  // /dev/urandom on Linux
  std::string out;
  for (int i = 0; i < 4; ++i) out += fmt::format("{:08x}", rd());
  return out;
}

struct LiveServer::Impl {
  httplib::Server server;
  std::thread thread;
  std::string host, token, page;
  int port = 0;
  std::mutex mu;
  std::condition_variable cv;
  std::string state = "{}";
  ServerControls controls;
  bool final = false;
  bool connected = false;     // a page fetched the state
  bool final_served = false;  // ... and the final one

  bool allowed(const httplib::Request& req, httplib::Response& res) {
    if (req.get_param_value("token") == token) return true;
    res.status = 403;
    res.set_content(
        "andweorc: wrong or missing token; use the URL "
        "`andweorc run --live` printed\n",
        "text/plain");
    return false;
  }
};

LiveServer::LiveServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<LiveServer> LiveServer::start(const ListenAddress& address,
                                              std::string page,
                                              std::string* error,
                                              ServerControls controls) {
  struct sigaction sa {};
  sa.sa_handler = ignore_sigpipe;
  sigaction(SIGPIPE, &sa, nullptr);

  auto impl = std::make_unique<Impl>();
  Impl* s = impl.get();
  s->host = address.host;
  s->token = random_token();
  s->page = std::move(page);
  s->controls = std::move(controls);
  s->server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  // cpp-httplib's default also sets SO_REUSEPORT, which lets a second
  // server (another run of the same user) bind the same port and take
  // half of the page's requests. SO_REUSEADDR alone still allows a quick
  // restart on a port in TIME_WAIT.
  s->server.set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s->server.Get("/", [s](const httplib::Request& req, httplib::Response& res) {
    if (!s->allowed(req, res)) return;
    res.set_header("Cache-Control", "no-store");
    res.set_content(s->page, "text/html; charset=utf-8");
  });
  s->server.Get("/state",
                [s](const httplib::Request& req, httplib::Response& res) {
                  if (!s->allowed(req, res)) return;
                  std::string body;
                  {
                    std::lock_guard<std::mutex> lock(s->mu);
                    body = s->state;
                    s->connected = true;
                    if (s->final) s->final_served = true;
                  }
                  // The controls' state is fresh at every request, not
                  // only when the model is republished.
                  if (s->controls.state)
                    body = "{\"controls\":" + s->controls.state() +
                           (body.size() > 2 ? "," + body.substr(1) : "}");
                  s->cv.notify_all();
                  res.set_header("Cache-Control", "no-store");
                  res.set_content(body, "application/json");
                });
  if (s->controls.post) {
    s->server.Post("/control",
                   [s](const httplib::Request& req, httplib::Response& res) {
                     if (!s->allowed(req, res)) return;
                     auto [status, body] = s->controls.post(req.body);
                     res.status = status;
                     res.set_header("Cache-Control", "no-store");
                     res.set_content(body, "application/json");
                   });
  }
  if (s->controls.state) {
    s->server.Get("/control",
                  [s](const httplib::Request& req, httplib::Response& res) {
                    if (!s->allowed(req, res)) return;
                    res.set_header("Cache-Control", "no-store");
                    res.set_content(s->controls.state(), "application/json");
                  });
  }
  if (address.port == 0) {
    s->port = s->server.bind_to_any_port(address.host);
  } else if (s->server.bind_to_port(address.host, address.port)) {
    s->port = address.port;
  } else {
    s->port = -1;
  }
  if (s->port <= 0) {
    *error = fmt::format("--live: cannot listen on {}:{} (in use?)",
                         address.host, address.port);
    return nullptr;
  }
  s->thread = std::thread([s] { s->server.listen_after_bind(); });
  // stop() before the loop runs would be lost: wait until it does.
  for (int i = 0; i < 5000 && !s->server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return std::unique_ptr<LiveServer>(new LiveServer(std::move(impl)));
}

LiveServer::~LiveServer() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string LiveServer::url() const {
  std::string host = impl_->host.find(':') != std::string::npos
                         ? "[" + impl_->host + "]"
                         : impl_->host;
  return fmt::format("http://{}:{}/?token={}", host, impl_->port, impl_->token);
}

void LiveServer::publish(std::string state_json, bool final) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->state = std::move(state_json);
  impl_->final = final;
}

void LiveServer::linger(double max_s) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (!impl_->connected) return;
  impl_->cv.wait_for(lock, std::chrono::duration<double>(max_s),
                     [this] { return impl_->final_served; });
}

}  // namespace andweorc::live
