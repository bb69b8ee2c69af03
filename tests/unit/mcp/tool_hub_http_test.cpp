// The ToolHub against `weather_server.py --http 0`: the official SDK's streamable HTTP server
// (SSE responses, Mcp-Session-Id), here requiring an Authorization header.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>

#include "mcp_test_support.h"

namespace zen::mcp {
namespace {

using namespace zen::mcp::testing;

constexpr const char* kToken = "Bearer s3cret";

// A loopback port nobody listens on: bound, noted, closed.
int unused_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), size);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

class HttpHub : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WITHOUT_PYTHON_MCP();
    start_server(0);
  }

  void start_server(int port) {
    server_ = std::make_unique<HttpWeatherServer>(
        std::map<std::string, std::string>{{"WEATHER_FORECAST", "fog"},
                                           {"WEATHER_CALL_LOG", call_log().string()}},
        std::vector<std::string>{"--require-header", std::string("Authorization: ") + kToken},
        port);
  }

  std::filesystem::path config_file(const std::string& server_extra,
                                    const std::string& top_extra = "") {
    std::string text = R"({"mcpServers": {"remote": {"models": ["*"], "url": ")" + server_->url() +
                       "\"" + server_extra + "}}" + top_extra + "}";
    auto file = dir_.path() / "mcp.json";
    std::ofstream(file) << text;
    return file;
  }

  std::shared_ptr<ToolHub> start(const std::string& server_extra,
                                 const std::string& top_extra = "") {
    return ToolHub::start(config_file(server_extra, top_extra), log_.fn());
  }

  std::string with_token() const {
    return std::string(R"(, "headers": {"Authorization": ")") + kToken + "\"}";
  }

  std::filesystem::path call_log() const { return dir_.path() / "calls.jsonl"; }

  TempDir dir_;
  LogCapture log_;
  std::unique_ptr<HttpWeatherServer> server_;
};

TEST_F(HttpHub, ListsAndCallsToolsOverStreamableHttp) {
  auto hub = start(with_token());
  EXPECT_EQ(tool_names(hub->openai_tools()),
            (std::vector<std::string>{"remote__get_weather", "remote__slow", "remote__crash",
                                      "remote__add"}))
      << log_.all();
  EXPECT_TRUE(log_.contains("mcp server 'remote' ready: 4 of 4 tools (" + server_->url() +
                            ", protocol 2025-11-25)"))
      << log_.all();
  ToolCallResult weather = hub->call("remote__get_weather", {{"city", "Oslo"}});
  EXPECT_FALSE(weather.is_error) << weather.text;
  EXPECT_EQ(weather.text, "fog");
  EXPECT_EQ(hub->call("remote__add", {{"a", 2}, {"b", 3}}).text, "5");
  EXPECT_EQ(read_json_lines(call_log()),
            (std::vector<json>{{{"tool", "get_weather"}, {"arguments", {{"city", "Oslo"}}}},
                               {{"tool", "add"}, {"arguments", {{"a", 2}, {"b", 3}}}}}));
}

TEST_F(HttpHub, ConfiguredHeadersReachTheServer) {
  // Without the header the server answers 401: the server is left out with the reason.
  auto without = start("");
  EXPECT_TRUE(without->openai_tools().empty());
  EXPECT_TRUE(log_.contains("mcp server 'remote' left out: HTTP 401 Unauthorized from " +
                            server_->url() + ": missing required header"))
      << log_.all();
  auto with = start(with_token());
  EXPECT_EQ(with->call("remote__add", {{"a", 20}, {"b", 22}}).text, "42");
}

TEST_F(HttpHub, ASlowCallTimesOutAndTheServerIsToldToCancel) {
  auto hub = start(with_token(), R"(, "call_timeout_s": 1)");
  auto t0 = std::chrono::steady_clock::now();
  ToolCallResult r = hub->call("remote__slow", {{"seconds", 5}});
  Seconds took = since(t0);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "mcp tool 'remote__slow' timed out after 1 s");
  EXPECT_GE(took.count(), 0.95);
  EXPECT_LT(took.count(), 3.0);
  EXPECT_TRUE(wait_for_line(call_log(), {{"tool", "slow"}, {"cancelled", true}}, Seconds(3)));
  EXPECT_EQ(hub->call("remote__add", {{"a", 1}, {"b", 1}}).text, "2");
}

TEST_F(HttpHub, TheCancelFlagAbandonsACall) {
  auto hub = start(with_token());
  std::atomic<bool> cancelled{false};
  auto t0 = std::chrono::steady_clock::now();
  auto canceller = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancelled = true;
  });
  ToolCallResult r = hub->call("remote__slow", {{"seconds", 5}}, &cancelled);
  EXPECT_EQ(r.text, "cancelled");
  EXPECT_TRUE(r.is_error);
  EXPECT_LT(since(t0).count(), 2.0);
  EXPECT_TRUE(wait_for_line(call_log(), {{"tool", "slow"}, {"cancelled", true}}, Seconds(3)));
}

TEST_F(HttpHub, MaxConcurrentCallsSerializesCalls) {
  auto hub = start(with_token(), R"(, "max_concurrent_calls": 1)");
  auto t0 = std::chrono::steady_clock::now();
  auto slow = [&] { return hub->call("remote__slow", {{"seconds", 0.5}}); };
  auto first = std::async(std::launch::async, slow);
  auto second = std::async(std::launch::async, slow);
  EXPECT_EQ(first.get().text, "done");
  EXPECT_EQ(second.get().text, "done");
  EXPECT_GE(since(t0).count(), 1.0);
}

TEST_F(HttpHub, AServerThatForgotTheSessionIsReconnected) {
  Config config = load_config(config_file(with_token()));
  config.restart_interval = std::chrono::milliseconds(0);
  auto hub = ToolHub::start(std::move(config), log_.fn());
  EXPECT_EQ(hub->call("remote__add", {{"a", 2}, {"b", 3}}).text, "5");
  int port = server_->port();
  server_.reset();  // the server restarts on the same port: our session id means nothing there
  start_server(port);
  ToolCallResult again = hub->call("remote__add", {{"a", 2}, {"b", 3}});
  EXPECT_FALSE(again.is_error) << again.text << "\n" << log_.all();
  EXPECT_EQ(again.text, "5");
  EXPECT_TRUE(log_.contains("mcp server 'remote' is not running: reconnecting")) << log_.all();
}

TEST_F(HttpHub, AnUnreachableServerIsLeftOut) {
  int port = unused_port();
  std::string text = R"({"mcpServers": {"gone": {"models": ["*"], "url": "http://127.0.0.1:)" +
                     std::to_string(port) + R"(/mcp"}}, "connect_timeout_s": 5})";
  auto file = dir_.path() / "gone.json";
  std::ofstream(file) << text;
  auto hub = ToolHub::start(file, log_.fn());
  EXPECT_TRUE(hub->openai_tools().empty());
  EXPECT_TRUE(log_.contains("mcp server 'gone' left out: cannot connect to 127.0.0.1:" +
                            std::to_string(port) + ": Connection refused"))
      << log_.all();
}

}  // namespace
}  // namespace zen::mcp
