// The ToolHub against weather_server.py over stdio: a real child process speaking MCP through
// the official Python SDK.
#include <gtest/gtest.h>

#include <future>

#include "mcp_test_support.h"

namespace zen::mcp {
namespace {

using namespace zen::mcp::testing;

class StdioHub : public ::testing::Test {
 protected:
  void SetUp() override { SKIP_WITHOUT_PYTHON_MCP(); }

  // A config with the weather server over stdio; `server_extra` is spliced into its entry,
  // `top_extra` into the top level.
  Config config(const std::string& server_extra = "", const std::string& top_extra = "") {
    json weather = {
        {"command", "python3"},
        {"models", {"*"}},
        {"args", {weather_server()}},
        {"env", {{"WEATHER_FORECAST", "sunny spells"}, {"WEATHER_CALL_LOG", call_log().string()}}}};
    std::string text = R"({"mcpServers": {"weather": )" + weather.dump();
    text.insert(text.size() - 1, server_extra);
    text += "}" + top_extra + "}";
    auto file = dir_.path() / "mcp.json";
    std::ofstream(file) << text;
    return load_config(file);
  }

  std::shared_ptr<ToolHub> start(Config c) { return ToolHub::start(std::move(c), log_.fn()); }

  std::filesystem::path call_log() const { return dir_.path() / "calls.jsonl"; }

  TempDir dir_;
  LogCapture log_;
};

TEST_F(StdioHub, OffersTheServersToolsWithTheirSchemas) {
  auto file = dir_.path() / "file.json";
  std::ofstream(file)
      << R"({"mcpServers": {"weather": {"models": ["*"], "command": "python3", "args": [")"
      << weather_server() << R"("]}}})";
  auto hub = ToolHub::start(file, log_.fn());  // the entry point serve uses
  json tools = hub->openai_tools();
  // The order the server lists them in (the order weather_server.py defines them).
  EXPECT_EQ(tool_names(tools), (std::vector<std::string>{"weather__get_weather", "weather__slow",
                                                         "weather__crash", "weather__add"}))
      << log_.all();
  ASSERT_EQ(tools.size(), 4u);
  const json& get_weather = tools[0];
  EXPECT_EQ(get_weather["type"], "function");
  EXPECT_EQ(get_weather["function"]["description"], "The weather forecast for a city.");
  const json& parameters = get_weather["function"]["parameters"];
  EXPECT_EQ(parameters["type"], "object");
  EXPECT_EQ(parameters["properties"]["city"]["type"], "string");
  EXPECT_EQ(parameters["required"], json({"city"}));
  const json& add = tools[3]["function"]["parameters"];
  EXPECT_EQ(add["properties"]["a"]["type"], "integer");
  EXPECT_EQ(add["required"], json({"a", "b"}));

  EXPECT_TRUE(hub->owns("weather__get_weather"));
  EXPECT_FALSE(hub->owns("get_weather"));
  EXPECT_FALSE(hub->owns("weather__nothing"));
  EXPECT_EQ(hub->max_rounds(), 4);
  EXPECT_TRUE(
      log_.contains("mcp server 'weather' ready: 4 of 4 tools (stdio, protocol 2025-11-25)"))
      << log_.all();
}

TEST_F(StdioHub, CallsReturnTheToolsResultAndTheServerSeesTheArguments) {
  auto hub = start(config());
  ToolCallResult weather = hub->call("weather__get_weather", {{"city", "Rome"}});
  EXPECT_FALSE(weather.is_error) << weather.text;
  EXPECT_EQ(weather.text, "sunny spells");  // $WEATHER_FORECAST from the config's env
  ToolCallResult sum = hub->call("weather__add", {{"a", 2}, {"b", 3}});
  EXPECT_FALSE(sum.is_error) << sum.text;
  EXPECT_EQ(sum.text, "5");
  EXPECT_EQ(read_json_lines(call_log()),
            (std::vector<json>{{{"tool", "get_weather"}, {"arguments", {{"city", "Rome"}}}},
                               {{"tool", "add"}, {"arguments", {{"a", 2}, {"b", 3}}}}}));
}

TEST_F(StdioHub, ServerErrorsComeBackAsToolErrors) {
  auto hub = start(config());
  ToolCallResult missing = hub->call("weather__add", {{"a", 2}});  // "b" is required
  EXPECT_TRUE(missing.is_error);
  EXPECT_NE(missing.text.find("b"), std::string::npos) << missing.text;
  ToolCallResult unknown = hub->call("weather__nothing", json::object());
  EXPECT_TRUE(unknown.is_error);
  EXPECT_EQ(unknown.text, "unknown mcp tool 'weather__nothing'");
  ToolCallResult not_object = hub->call("weather__add", json::array({1, 2}));
  EXPECT_TRUE(not_object.is_error);
  EXPECT_EQ(not_object.text, "mcp tool 'weather__add': arguments must be a JSON object");
}

TEST_F(StdioHub, TheAllowlistHidesTheOtherTools) {
  auto hub = start(config(R"(, "tools": ["add", "get_weather", "forecast"])"));
  // Allowed tools in the server's order; "forecast" is not the server's: a log line says so.
  EXPECT_EQ(tool_names(hub->openai_tools()),
            (std::vector<std::string>{"weather__get_weather", "weather__add"}));
  EXPECT_FALSE(hub->owns("weather__slow"));
  EXPECT_EQ(hub->call("weather__slow", {{"seconds", 0}}).text, "unknown mcp tool 'weather__slow'");
  EXPECT_TRUE(log_.contains("mcp server 'weather': allowed tool 'forecast' is not offered"))
      << log_.all();
}

TEST_F(StdioHub, ASlowCallTimesOutAndTheServerIsToldToCancel) {
  auto hub = start(config("", R"(, "call_timeout_s": 1)"));
  auto t0 = std::chrono::steady_clock::now();
  ToolCallResult r = hub->call("weather__slow", {{"seconds", 5}});
  Seconds took = since(t0);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "mcp tool 'weather__slow' timed out after 1 s");
  EXPECT_GE(took.count(), 0.95);
  EXPECT_LT(took.count(), 3.0);
  // notifications/cancelled interrupted the tool: it logs its cancellation.
  EXPECT_TRUE(wait_for_line(call_log(), {{"tool", "slow"}, {"cancelled", true}}, Seconds(3)));
  // The session goes on.
  EXPECT_EQ(hub->call("weather__add", {{"a", 1}, {"b", 1}}).text, "2");
}

TEST_F(StdioHub, TheCancelFlagAbandonsACall) {
  auto hub = start(config());
  std::atomic<bool> cancelled{false};
  auto t0 = std::chrono::steady_clock::now();
  auto canceller = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancelled = true;
  });
  ToolCallResult r = hub->call("weather__slow", {{"seconds", 5}}, &cancelled);
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "cancelled");
  EXPECT_LT(since(t0).count(), 2.0);
  EXPECT_TRUE(wait_for_line(call_log(), {{"tool", "slow"}, {"cancelled", true}}, Seconds(3)));
}

TEST_F(StdioHub, MaxConcurrentCallsSerializesCalls) {
  auto hub = start(config("", R"(, "max_concurrent_calls": 1)"));
  auto t0 = std::chrono::steady_clock::now();
  auto slow = [&] { return hub->call("weather__slow", {{"seconds", 0.5}}); };
  auto first = std::async(std::launch::async, slow);
  auto second = std::async(std::launch::async, slow);
  EXPECT_EQ(first.get().text, "done");
  EXPECT_EQ(second.get().text, "done");
  EXPECT_GE(since(t0).count(), 1.0);  // one at a time: 2 x 0.5 s
}

TEST_F(StdioHub, ACrashedServerIsRestartedAfterTheRestartInterval) {
  Config c = config();
  c.restart_interval = std::chrono::seconds(3);
  auto started = std::chrono::steady_clock::now();
  auto hub = start(std::move(c));
  ToolCallResult crash = hub->call("weather__crash", json::object());
  EXPECT_TRUE(crash.is_error);
  EXPECT_EQ(crash.text, "mcp server 'weather' exited (status 3)");
  EXPECT_TRUE(log_.contains("mcp server 'weather' exited (status 3)")) << log_.all();

  // Calls before the interval since the last start is over are refused, then the server is
  // started again and serves.
  ToolCallResult after;
  auto deadline = started + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    after = hub->call("weather__add", {{"a", 2}, {"b", 3}});
    if (!after.is_error) break;
    EXPECT_NE(after.text.find("mcp server 'weather' is not running (next restart attempt in"),
              std::string::npos)
        << after.text;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_FALSE(after.is_error) << after.text << "\n" << log_.all();
  EXPECT_EQ(after.text, "5");
  EXPECT_GE(since(started).count(), 3.0);
  EXPECT_TRUE(log_.contains("mcp server 'weather' is not running: restarting it")) << log_.all();
}

TEST_F(StdioHub, AServerThatCannotStartIsLeftOutAndTheOthersServe) {
  Config c = config();
  ServerConfig ghost;
  ghost.name = "ghost";
  ghost.command = "zen-no-such-command-for-mcp";
  ServerConfig noisy;  // starts, says why on stderr, exits before answering initialize
  noisy.name = "noisy";
  noisy.command = "sh";
  noisy.args = {"-c", "echo 'no API key set' >&2; exit 2"};
  c.servers.insert(c.servers.begin(), {ghost, noisy});
  auto hub = start(std::move(c));
  EXPECT_TRUE(log_.contains(
      "mcp server 'ghost' left out: cannot start 'zen-no-such-command-for-mcp': command not "
      "found in PATH"))
      << log_.all();
  EXPECT_TRUE(log_.contains("mcp[noisy]: no API key set")) << log_.all();
  EXPECT_TRUE(log_.contains("mcp server 'noisy' left out: exited (status 2)")) << log_.all();
  EXPECT_EQ(tool_names(hub->openai_tools()).size(), 4u);
  EXPECT_FALSE(hub->owns("ghost__anything"));
  EXPECT_EQ(hub->call("weather__add", {{"a", 2}, {"b", 3}}).text, "5");
}

TEST_F(StdioHub, StopEndsTheChildAndLaterCallsFailCleanly) {
  auto hub = start(config());
  hub->stop();
  ToolCallResult r = hub->call("weather__add", {{"a", 2}, {"b", 3}});
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "mcp tool hub is stopped");
  EXPECT_FALSE(log_.contains("exited (")) << log_.all();  // a stop is not reported as a crash
}

}  // namespace
}  // namespace zen::mcp
