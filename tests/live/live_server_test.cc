// live_server_test.cc: the page's server: loopback addresses only, the
// token on every request, the published state served as is.
#include "live/live_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>

namespace andweorc::live {
namespace {

TEST(ListenAddress, LoopbackForms) {
  std::string error;
  auto a = parse_listen_address("", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 0);
  a = parse_listen_address("127.0.0.1:8080", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->port, 8080);
  a = parse_listen_address(":9000", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9000);
  a = parse_listen_address("localhost:1", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->host, "127.0.0.1");
  a = parse_listen_address("[::1]:8080", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->host, "::1");
  EXPECT_EQ(a->port, 8080);
  a = parse_listen_address("127.1.2.3", &error);
  ASSERT_TRUE(a) << error;
  EXPECT_EQ(a->port, 0);
}

TEST(ListenAddress, RefusesWhatIsNotLoopbackOrNotAPort) {
  for (const char* bad : {"0.0.0.0:8080", "192.168.1.2:80", "[::]:80",
                          "example.com:80", "127.0.0.1:65536", "127.0.0.1:http",
                          "127.0.0.1:-1", "[::1", "[::1]8080"}) {
    std::string error;
    EXPECT_FALSE(parse_listen_address(bad, &error)) << bad;
    EXPECT_NE(error, "") << bad;
  }
  std::string error;
  parse_listen_address("0.0.0.0:1", &error);
  EXPECT_NE(error.find("loopback"), std::string::npos) << error;
}

TEST(RandomToken, HexAndDifferentEachTime) {
  std::string a = random_token(), b = random_token();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

TEST(LiveServer, ServesThePageAndStateOnlyWithTheToken) {
  std::string error;
  auto server = LiveServer::start({"127.0.0.1", 0}, "<p>page</p>", &error);
  ASSERT_TRUE(server) << error;
  std::string url = server->url();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << url;
  size_t q = url.find("/?token=");
  ASSERT_NE(q, std::string::npos);
  int port = std::stoi(url.substr(17, q - 17));
  std::string token = url.substr(q + 8);

  httplib::Client client("127.0.0.1", port);
  auto page = client.Get("/?token=" + token);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "<p>page</p>");
  for (const char* path : {"/", "/?token=wrong", "/state", "/state?token="}) {
    auto r = client.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 403) << path;
    EXPECT_EQ(r->body.find("page"), std::string::npos);
  }
  auto empty = client.Get("/state?token=" + token);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->body, "{}");
  server->publish("{\"kind\":\"update\"}", false);
  auto state = client.Get("/state?token=" + token);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->body, "{\"kind\":\"update\"}");
  EXPECT_EQ(state->get_header_value("Cache-Control"), "no-store");

  // The final state fetched: linger() returns at once, not after 60 s.
  server->publish("{\"kind\":\"final\"}", true);
  ASSERT_TRUE(client.Get("/state?token=" + token));
  auto start = std::chrono::steady_clock::now();
  server->linger(60);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(LiveServer, LingerReturnsAtOnceWhenNoPageEverConnected) {
  std::string error;
  auto server = LiveServer::start({"127.0.0.1", 0}, "x", &error);
  ASSERT_TRUE(server) << error;
  server->publish("{}", true);
  auto start = std::chrono::steady_clock::now();
  server->linger(60);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(LiveServer, APortInUseIsAClearError) {
  std::string error;
  auto first = LiveServer::start({"127.0.0.1", 0}, "x", &error);
  ASSERT_TRUE(first) << error;
  std::string url = first->url();
  int port = std::stoi(url.substr(17, url.find("/?") - 17));
  auto second = LiveServer::start({"127.0.0.1", port}, "x", &error);
  EXPECT_FALSE(second);
  EXPECT_NE(error.find(std::to_string(port)), std::string::npos) << error;
}

}  // namespace
}  // namespace andweorc::live
