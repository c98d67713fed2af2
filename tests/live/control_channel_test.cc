// control_channel_test.cc: the tool's end of the live controls' channel:
// the page's pin text parsed (or refused, nothing sent), commands written
// as the coordinator reads them (runtime/control_block.h's control_read),
// acknowledgements followed (a refused pin keeps the previous one), and
// the server's control routes behind the token.
#include "live/control_channel.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include "live/live_server.h"

namespace andweorc::live {
namespace {

using runtime::ControlAck;
using runtime::ControlBlock;
using runtime::ControlCommand;
using runtime::ControlRead;
using runtime::PinKind;

TEST(ParsePin, LinesAndFunctions) {
  ControlCommand c;
  std::string error;
  ASSERT_TRUE(parse_pin("src/pipeline.cc:45", &c, &error)) << error;
  EXPECT_EQ(c.pin, PinKind::kLine);
  EXPECT_EQ(c.pin_line, 45);
  EXPECT_STREQ(c.pin_target, "src/pipeline.cc");
  ASSERT_TRUE(parse_pin("transform_item", &c, &error)) << error;
  EXPECT_EQ(c.pin, PinKind::kFunction);
  EXPECT_STREQ(c.pin_target, "transform_item");
  ASSERT_TRUE(parse_pin("ns::Queue::push", &c, &error)) << error;
  EXPECT_EQ(c.pin, PinKind::kFunction);
  EXPECT_STREQ(c.pin_target, "ns::Queue::push");
}

TEST(ParsePin, RefusesWhatIsNeither) {
  const std::string too_long(300, 'f');
  for (const char* bad : {"", "main.cc:0", "main.cc:x", ":12", "a b",
                          "main.cc:", too_long.c_str()}) {
    ControlCommand c;
    std::string error;
    EXPECT_FALSE(parse_pin(bad, &c, &error)) << bad;
    EXPECT_NE(error.find("pin:"), std::string::npos) << bad << ": " << error;
  }
}

struct Channel : ::testing::Test {
  ControlBlock block;
  std::unique_ptr<ControlChannel> channel;
  void SetUp() override {
    runtime::control_init(&block);
    channel = std::make_unique<ControlChannel>(&block);
  }
  // The coordinator's side: the command it would take now.
  ControlCommand read(uint64_t seen) {
    ControlCommand c;
    EXPECT_EQ(runtime::control_read(&block, seen, &c), ControlRead::kCommand);
    return c;
  }
  void ack(const ControlCommand& c, int status, const char* pin_text) {
    ControlAck a;
    a.seq = c.seq;
    a.status = status;
    a.paused = c.paused;
    a.pin = status == 0 ? c.pin : PinKind::kNone;
    std::snprintf(a.pin_text, sizeof a.pin_text, "%s", pin_text);
    if (status) std::snprintf(a.error, sizeof a.error, "pin: no such line");
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    a.time_ns = uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
    runtime::control_acknowledge(&block, a);
  }
};

TEST_F(Channel, CommandsCarryTheWholeStateAndAcksAreFollowed) {
  EXPECT_EQ(channel->state()["applied"], nullptr);
  auto sent = channel->request("pause", "");
  ASSERT_TRUE(sent.ok) << sent.error;
  ControlCommand c = read(0);
  EXPECT_EQ(c.seq, sent.seq);
  EXPECT_EQ(c.paused, 1u);
  EXPECT_EQ(c.pin, PinKind::kNone);
  EXPECT_TRUE(channel->state()["pending"].get<bool>());
  EXPECT_FALSE(channel->poll());  // nothing acknowledged yet

  sent = channel->request("pin", "pipeline.cc:45");
  ASSERT_TRUE(sent.ok) << sent.error;
  c = read(c.seq);
  EXPECT_EQ(c.paused, 1u);  // still paused: the state, not a delta
  EXPECT_EQ(c.pin, PinKind::kLine);
  EXPECT_EQ(c.pin_line, 45);
  ack(c, 0, "pipeline.cc:45 (1 line)");
  auto applied = channel->poll();
  ASSERT_TRUE(applied);
  EXPECT_EQ(applied->ack.seq, sent.seq);
  EXPECT_GE(applied->latency_ms, 0);
  EXPECT_FALSE(channel->poll());  // reported once
  auto st = channel->state();
  EXPECT_FALSE(st["pending"].get<bool>());
  EXPECT_EQ(st["applied"]["pin"], "pipeline.cc:45 (1 line)");
  EXPECT_TRUE(st["applied"]["paused"].get<bool>());
}

TEST_F(Channel, ThePeriodIsPartOfTheStateAndOnlyAWholeMultiple) {
  auto sent = channel->request("period", "4");
  ASSERT_TRUE(sent.ok) << sent.error;
  ControlCommand c = read(0);
  EXPECT_EQ(c.period_multiple, 4u);
  EXPECT_EQ(channel->state()["requested"]["period_multiple"], 4);
  sent = channel->request("pause", "");
  c = read(c.seq);
  EXPECT_EQ(c.period_multiple, 4u);  // kept: the whole state
  for (const char* bad : {"0", "65", "1.5", "", "4ms"}) {
    auto refused = channel->request("period", bad);
    EXPECT_FALSE(refused.ok) << bad;
    EXPECT_NE(refused.error.find("from 1 to 64"), std::string::npos)
        << refused.error;
  }
  EXPECT_EQ(read(0).seq, c.seq);  // nothing was sent for them
}

TEST_F(Channel, ARefusedPinKeepsThePreviousOne) {
  auto sent = channel->request("pin", "pipeline.cc:45");
  ControlCommand c = read(0);
  ack(c, 0, "pipeline.cc:45 (1 line)");
  ASSERT_TRUE(channel->poll());
  sent = channel->request("pin", "nowhere.cc:1");
  c = read(c.seq);
  ack(c, 1, "pipeline.cc:45 (1 line)");
  ASSERT_TRUE(channel->poll());
  EXPECT_EQ(channel->state()["error"], "pin: no such line");
  // The next command asks for the pin in force, not the refused one.
  sent = channel->request("resume", "");
  c = read(c.seq);
  EXPECT_EQ(c.pin_line, 45);
  EXPECT_STREQ(c.pin_target, "pipeline.cc");
}

TEST_F(Channel, BadRequestsSendNothing) {
  for (auto [action, target] : {std::pair{"pin", "main.cc:0"},
                                std::pair{"pin", ""}, std::pair{"jump", ""}}) {
    auto sent = channel->request(action, target);
    EXPECT_FALSE(sent.ok) << action;
    EXPECT_NE(sent.error, "") << action;
  }
  ControlCommand c;
  EXPECT_EQ(runtime::control_read(&block, 0, &c), ControlRead::kNothing);
}

// Probes from the page: one change at a time, the states a probe goes
// through as the coordinator acknowledges, and the tool's refusals.
TEST_F(Channel, ProbeChangesAreSentOneAtATimeAndFollowed) {
  auto sent =
      channel->add_probe("steps", "progress", "step",
                         "@program\t0\t/x\t0\t0\nsteps\t1\t/x\t1\t1\tp", 1);
  ASSERT_TRUE(sent.ok) << sent.error;
  runtime::ProbeCommand c;
  ASSERT_EQ(runtime::control_read_probe(&block, 0, &c), ControlRead::kCommand);
  EXPECT_EQ(c.seq, sent.seq);
  EXPECT_EQ(c.action, runtime::ProbeAction::kAdd);
  EXPECT_NE(std::string(c.lines).find("steps\t1"), std::string::npos);
  // The next change waits for this one's acknowledgement.
  auto busy = channel->add_probe("other", "progress", "f", "x", 1);
  EXPECT_FALSE(busy.ok);
  EXPECT_NE(busy.error.find("not acknowledged"), std::string::npos);
  EXPECT_EQ(channel->state()["probes"][0]["state"], "adding");
  EXPECT_TRUE(channel->state()["probe_pending"].get<bool>());

  runtime::ProbeAck a;
  a.seq = c.seq;
  a.id = c.id;
  a.pid = 42;
  a.sites = 1;
  runtime::control_acknowledge_probe(&block, a);
  auto applied = channel->poll_probe();
  ASSERT_TRUE(applied);
  EXPECT_EQ(applied->action, "probe");
  EXPECT_EQ(applied->name, "steps");
  EXPECT_FALSE(channel->poll_probe());  // reported once
  auto st = channel->state();
  EXPECT_EQ(st["probes"][0]["state"], "in");
  EXPECT_EQ(st["probes"][0]["pid"], 42);
  EXPECT_FALSE(st["probe_pending"].get<bool>());
  // The name is taken while in; an unknown one cannot be removed.
  EXPECT_FALSE(channel->add_probe("steps", "progress", "step", "x", 1).ok);
  EXPECT_FALSE(channel->remove_probe("nothing").ok);
  EXPECT_TRUE(channel->had_probe("steps"));

  sent = channel->remove_probe("steps");
  ASSERT_TRUE(sent.ok) << sent.error;
  ASSERT_EQ(runtime::control_read_probe(&block, c.seq, &c),
            ControlRead::kCommand);
  EXPECT_EQ(c.action, runtime::ProbeAction::kRemove);
  EXPECT_EQ(channel->state()["probes"][0]["state"], "removing");
  a.seq = c.seq;
  a.status = 1;  // refused: the probe stays in
  std::snprintf(a.error, sizeof a.error, "probe: could not be removed");
  runtime::control_acknowledge_probe(&block, a);
  applied = channel->poll_probe();
  ASSERT_TRUE(applied);
  EXPECT_EQ(applied->action, "unprobe");
  EXPECT_EQ(channel->state()["probes"][0]["state"], "in");
  sent = channel->remove_probe("steps");
  ASSERT_TRUE(sent.ok);
  a.seq = sent.seq;
  a.status = 0;
  runtime::control_acknowledge_probe(&block, a);
  ASSERT_TRUE(channel->poll_probe());
  EXPECT_EQ(channel->state()["probes"][0]["state"], "removed");

  // Lines that do not fit the page: refused, nothing sent.
  uint64_t before = block.probe_seq;
  auto big =
      channel->add_probe("big", "progress", "f",
                         std::string(runtime::kControlProbeTextSize, 'x'), 40);
  EXPECT_FALSE(big.ok);
  EXPECT_NE(big.error.find("do not fit"), std::string::npos);
  EXPECT_EQ(block.probe_seq, before);
}

TEST(ControlBlock, TornOrForeignCommandsAreNotTaken) {
  ControlBlock block;
  runtime::control_init(&block);
  ControlCommand c;
  c.paused = 1;
  uint64_t seq = runtime::control_send(&block, c);
  block.seq = seq + 1;  // the writer is mid-way
  ControlCommand out;
  EXPECT_EQ(runtime::control_read(&block, 0, &out), ControlRead::kTorn);
  block.seq = seq;
  EXPECT_EQ(runtime::control_read(&block, 0, &out), ControlRead::kCommand);
  block.version = runtime::kControlVersion + 1;
  EXPECT_EQ(runtime::control_read(&block, 0, &out), ControlRead::kBadHeader);
  block.version = runtime::kControlVersion;
  block.magic = 0;
  EXPECT_EQ(runtime::control_read(&block, 0, &out), ControlRead::kBadHeader);
}

TEST(LiveServerControls, PostNeedsTheTokenAndStateCarriesControls) {
  std::string error;
  int posts = 0;
  ServerControls routes;
  routes.post = [&posts](const std::string& body) {
    ++posts;
    return std::make_pair(200, "{\"echo\":" + body + "}");
  };
  routes.state = [] { return std::string("{\"paused\":true}"); };
  auto server =
      LiveServer::start({"127.0.0.1", 0}, "x", &error, std::move(routes));
  ASSERT_TRUE(server) << error;
  std::string url = server->url();
  size_t q = url.find("/?token=");
  int port = std::stoi(url.substr(17, q - 17));
  std::string token = url.substr(q + 8);
  httplib::Client client("127.0.0.1", port);
  for (const char* path : {"/control", "/control?token=wrong"}) {
    auto r = client.Post(path, "{\"action\":\"pause\"}", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 403) << path;
  }
  EXPECT_EQ(posts, 0);
  auto r = client.Post("/control?token=" + token, "{\"action\":\"pause\"}",
                       "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "{\"echo\":{\"action\":\"pause\"}}");
  EXPECT_EQ(posts, 1);
  auto get = client.Get("/control?token=" + token);
  ASSERT_TRUE(get);
  EXPECT_EQ(get->body, "{\"paused\":true}");
  EXPECT_EQ(client.Get("/control")->status, 403);
  EXPECT_EQ(client.Get("/state?token=" + token)->body,
            "{\"controls\":{\"paused\":true}}");
  server->publish("{\"kind\":\"update\"}", false);
  EXPECT_EQ(client.Get("/state?token=" + token)->body,
            "{\"controls\":{\"paused\":true},\"kind\":\"update\"}");
}

}  // namespace
}  // namespace andweorc::live
