// The MCP client configuration (`zen-engine serve --mcp-config FILE`): which MCP servers to
// start or connect to, which of their tools to expose, and the limits of the tool loop.
// Parsing is strict: an unknown key, a wrong type or an entry with both "command" and "url"
// is a zen::Error that names the key ("mcpServers.weather.args[1]").
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zen::mcp {

struct ServerConfig {
  std::string name;  // [A-Za-z0-9_-]{1,32}, no "__": the prefix of its exposed tool names

  // stdio: a child process speaking newline-delimited JSON-RPC on stdin/stdout.
  std::string command;  // empty for an HTTP server
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // set for the child (child_process.h)
  std::vector<std::string> inherit_env;    // host variables the child also gets, by name
  std::optional<std::filesystem::path> cwd;

  // Streamable HTTP.
  std::string url;  // empty for a stdio server
  std::map<std::string, std::string> headers;

  // The server's own tool names to expose; empty = all ("*").
  std::vector<std::string> tools;

  // The served model ids whose chat requests get these tools ("models", required in the
  // file): a tool runs with the server's rights, so nothing is offered unless named here.
  std::vector<std::string> models;
  bool all_models = false;  // "models": ["*"]

  bool is_stdio() const { return !command.empty(); }
  bool allows(const std::string& tool) const;
  bool offered_to(std::string_view model) const;
};

struct Config {
  std::vector<ServerConfig> servers;  // in file order
  int max_rounds = 4;
  std::chrono::milliseconds call_timeout{30'000};
  int max_concurrent_calls = 4;
  std::chrono::milliseconds connect_timeout{20'000};
  // Not in the file: a stdio server that died is restarted at most this often. Tests shorten it.
  std::chrono::milliseconds restart_interval{10'000};
};

// `origin` names the source in error messages (the file path).
Config parse_config(const std::string& json_text, const std::string& origin);
Config load_config(const std::filesystem::path& file);

}  // namespace zen::mcp
