#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <zen/plugin.hpp>

#include "mcp/config.h"

namespace zen::mcp {
namespace {

// The message of the zen::Error that parsing `text` throws ("" when it does not throw).
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "test.json");
  } catch (const Error& e) {
    return e.message;
  }
  return "";
}

TEST(McpConfig, ReadsEveryFieldInFileOrder) {
  Config c = parse_config(R"({
    "mcpServers": {
      "zeta": {"command": "python3", "args": ["a.py", "--x"], "env": {"K": "V"},
               "cwd": "/tmp", "tools": ["get_weather"], "models": ["tiny", "other"]},
      "alpha": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "Bearer x"},
                "tools": ["*"], "models": ["*"]}
    },
    "max_rounds": 2, "call_timeout_s": 1.5, "max_concurrent_calls": 3, "connect_timeout_s": 7
  })",
                          "test.json");
  ASSERT_EQ(c.servers.size(), 2u);
  const ServerConfig& zeta = c.servers[0];  // the file's order, not alphabetical
  EXPECT_EQ(zeta.name, "zeta");
  EXPECT_TRUE(zeta.is_stdio());
  EXPECT_EQ(zeta.command, "python3");
  EXPECT_EQ(zeta.args, (std::vector<std::string>{"a.py", "--x"}));
  EXPECT_EQ(zeta.env.at("K"), "V");
  EXPECT_EQ(zeta.cwd, std::filesystem::path("/tmp"));
  EXPECT_TRUE(zeta.allows("get_weather"));
  EXPECT_FALSE(zeta.allows("add"));
  EXPECT_TRUE(zeta.offered_to("tiny"));
  EXPECT_TRUE(zeta.offered_to("other"));
  EXPECT_FALSE(zeta.offered_to("tin"));
  const ServerConfig& alpha = c.servers[1];
  EXPECT_EQ(alpha.name, "alpha");
  EXPECT_FALSE(alpha.is_stdio());
  EXPECT_EQ(alpha.url, "http://127.0.0.1:8000/mcp");
  EXPECT_EQ(alpha.headers.at("Authorization"), "Bearer x");
  EXPECT_TRUE(alpha.allows("anything"));  // "*"
  EXPECT_TRUE(alpha.offered_to("any-model"));
  EXPECT_EQ(c.max_rounds, 2);
  EXPECT_EQ(c.call_timeout, std::chrono::milliseconds(1500));
  EXPECT_EQ(c.max_concurrent_calls, 3);
  EXPECT_EQ(c.connect_timeout, std::chrono::milliseconds(7000));
}

TEST(McpConfig, DefaultsMatchTheDocumentation) {
  Config c = parse_config(R"({"mcpServers": {}})", "test.json");
  EXPECT_TRUE(c.servers.empty());
  EXPECT_EQ(c.max_rounds, 4);
  EXPECT_EQ(c.call_timeout, std::chrono::seconds(30));
  EXPECT_EQ(c.max_concurrent_calls, 4);
  EXPECT_EQ(c.connect_timeout, std::chrono::seconds(20));
  EXPECT_EQ(c.restart_interval, std::chrono::seconds(10));
}

TEST(McpConfig, EachBadKeyIsNamed) {
  struct Case {
    const char* json;
    const char* named;  // must appear in the message
  };
  const Case cases[] = {
      {R"({"mcpServers": {}, "max_round": 4})", "'max_round' is not a known key"},
      {R"({"max_rounds": 4})", "'mcpServers' is missing"},
      {R"({"mcpServers": []})", "'mcpServers' must be an object"},
      {R"({"mcpServers": {"w": {"command": "x", "url": "http://h/"}}})",
       "'mcpServers.w' needs exactly one of \"command\" and \"url\""},
      {R"({"mcpServers": {"w": {"tools": ["*"]}}})", "'mcpServers.w' needs exactly one"},
      {R"({"mcpServers": {"w": {"comand": "x"}}})", "'mcpServers.w.comand' is not a known key"},
      {R"({"mcpServers": {"w": {"command": 3}}})", "'mcpServers.w.command' must be a string"},
      {R"({"mcpServers": {"w": {"command": ""}}})", "'mcpServers.w.command' must not be empty"},
      {R"({"mcpServers": {"w": {"command": "x", "args": "a"}}})", "'mcpServers.w.args' must be"},
      {R"({"mcpServers": {"w": {"command": "x", "args": ["a", 1]}}})",
       "'mcpServers.w.args[1]' must be a string"},
      {R"({"mcpServers": {"w": {"command": "x", "env": {"K": 1}}}})",
       "'mcpServers.w.env.K' must be a string"},
      {R"({"mcpServers": {"w": {"command": "x", "headers": {}}}})",
       "'mcpServers.w.headers' is for \"url\" servers only"},
      {R"({"mcpServers": {"w": {"url": "http://h/", "args": []}}})",
       "'mcpServers.w.args' is for \"command\" servers only"},
      {R"({"mcpServers": {"w": {"url": "ftp://h/"}}})", "'mcpServers.w.url' is not an http(s) URL"},
      {R"({"mcpServers": {"w": {"url": "http://h/", "headers": {"A": true}}}})",
       "'mcpServers.w.headers.A' must be a string"},
      {R"({"mcpServers": {"w": {"command": "x", "tools": []}}})", "'mcpServers.w.tools' is empty"},
      {R"({"mcpServers": {"w": {"command": "x", "tools": [2]}}})",
       "'mcpServers.w.tools[0]' must be a string"},
      {R"({"mcpServers": {"w": {"command": "x"}}})", "'mcpServers.w.models' is missing"},
      {R"({"mcpServers": {"w": {"command": "x", "models": []}}})",
       "'mcpServers.w.models' is empty"},
      {R"({"mcpServers": {"w": {"url": "http://h/", "models": "tiny"}}})",
       "'mcpServers.w.models' must be an array of strings"},
      {R"({"mcpServers": {"a__b": {"command": "x"}}})",
       "'mcpServers.a__b' is not a valid server name"},
      {R"({"mcpServers": {"a b": {"command": "x"}}})",
       "'mcpServers.a b' is not a valid server name"},
      {R"({"mcpServers": {"abcdefghijklmnopqrstuvwxyz0123456": {"command": "x"}}})",
       "is not a valid server name"},
      {R"({"mcpServers": {}, "max_rounds": 0})", "'max_rounds' must be an integer"},
      {R"({"mcpServers": {}, "max_concurrent_calls": 1.5})", "'max_concurrent_calls' must be"},
      {R"({"mcpServers": {}, "call_timeout_s": "30"})", "'call_timeout_s' must be a number"},
      {R"({"mcpServers": {}, "call_timeout_s": 0})", "'call_timeout_s' must be a number"},
      {R"({"mcpServers": {}, "connect_timeout_s": -1})", "'connect_timeout_s' must be a number"},
      {R"({"mcpServers": {}})"
       "x",
       "is not valid JSON"},
      {R"([1])", "must be a JSON object"},
  };
  for (const Case& c : cases) {
    std::string message = error_of(c.json);
    EXPECT_NE(message.find(c.named), std::string::npos)
        << c.json << "\n  gave: " << (message.empty() ? "(no error)" : message);
    EXPECT_EQ(message.rfind("mcp config test.json: ", 0), 0u) << message;
  }
}

TEST(McpConfig, CommentsAreAllowedAsInTheDocumentation) {
  Config c = parse_config("{\"mcpServers\": {}, // none yet\n \"max_rounds\": 2}", "t");
  EXPECT_EQ(c.max_rounds, 2);
}

TEST(McpConfig, AMissingFileIsNamed) {
  try {
    load_config("/nonexistent/mcp.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message, "mcp config /nonexistent/mcp.json: cannot be read");
  }
}

}  // namespace
}  // namespace zen::mcp
