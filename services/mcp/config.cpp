#include "mcp/config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zen/plugin.hpp>

#include "store/url.h"

namespace zen::mcp {

namespace {

// Ordered, so the servers keep the file's order (openai_tools() lists them in that order).
using json = nlohmann::ordered_json;

// Every error names the file and the key path, e.g. "mcpServers.weather.env.K".
class Checker {
 public:
  explicit Checker(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw Error(ZEN_ERR_INVALID_ARG,
                "mcp config " + origin_ + ": " + (key.empty() ? "" : "'" + key + "' ") + what);
  }

  void only_keys(const json& object, const std::string& path,
                 std::initializer_list<const char*> known) const {
    for (const auto& [key, value] : object.items()) {
      bool ok = std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; });
      if (!ok) fail(join(path, key), "is not a known key");
    }
  }

  const json& object(const json& value, const std::string& key) const {
    if (!value.is_object()) fail(key, "must be an object");
    return value;
  }

  std::string string(const json& value, const std::string& key) const {
    if (!value.is_string()) fail(key, "must be a string");
    return value.get<std::string>();
  }

  std::vector<std::string> strings(const json& value, const std::string& key) const {
    if (!value.is_array()) fail(key, "must be an array of strings");
    std::vector<std::string> out;
    for (size_t i = 0; i < value.size(); ++i)
      out.push_back(string(value[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }

  std::map<std::string, std::string> string_map(const json& value, const std::string& key) const {
    object(value, key);
    std::map<std::string, std::string> out;
    for (const auto& [k, v] : value.items()) out[k] = string(v, join(key, k));
    return out;
  }

  int positive_int(const json& value, const std::string& key) const {
    if (!value.is_number_integer() || value.get<int64_t>() < 1 || value.get<int64_t>() > 1'000'000)
      fail(key, "must be an integer from 1 to 1000000");
    return static_cast<int>(value.get<int64_t>());
  }

  std::chrono::milliseconds seconds(const json& value, const std::string& key) const {
    if (!value.is_number() || !(value.get<double>() > 0) || value.get<double>() > 86400)
      fail(key, "must be a number of seconds, more than 0 and at most 86400");
    return std::chrono::milliseconds(std::llround(value.get<double>() * 1000));
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string origin_;
};

bool valid_server_name(const std::string& name) {
  static const std::regex pattern("[A-Za-z0-9_-]{1,32}");
  return std::regex_match(name, pattern) && name.find("__") == std::string::npos;
}

ServerConfig parse_server(const Checker& check, const std::string& name, const json& entry) {
  const std::string path = "mcpServers." + name;
  if (!valid_server_name(name))
    check.fail(path, "is not a valid server name ([A-Za-z0-9_-]{1,32} without \"__\")");
  check.object(entry, path);
  check.only_keys(
      entry, path,
      {"command", "args", "env", "inherit_env", "cwd", "url", "headers", "tools", "models"});
  bool has_command = entry.contains("command"), has_url = entry.contains("url");
  if (has_command == has_url) check.fail(path, "needs exactly one of \"command\" and \"url\"");

  ServerConfig server;
  server.name = name;
  auto key = [&](const char* k) { return path + "." + k; };
  if (has_command) {
    for (const char* http_only : {"headers"}) {
      if (entry.contains(http_only)) check.fail(key(http_only), "is for \"url\" servers only");
    }
    server.command = check.string(entry.at("command"), key("command"));
    if (server.command.empty()) check.fail(key("command"), "must not be empty");
    if (entry.contains("args")) server.args = check.strings(entry.at("args"), key("args"));
    if (entry.contains("env")) server.env = check.string_map(entry.at("env"), key("env"));
    if (entry.contains("inherit_env"))
      server.inherit_env = check.strings(entry.at("inherit_env"), key("inherit_env"));
    if (entry.contains("cwd")) server.cwd = check.string(entry.at("cwd"), key("cwd"));
  } else {
    for (const char* stdio_only : {"args", "env", "inherit_env", "cwd"}) {
      if (entry.contains(stdio_only))
        check.fail(key(stdio_only), "is for \"command\" servers only");
    }
    server.url = check.string(entry.at("url"), key("url"));
    try {
      store::parse_url(server.url);
    } catch (const Error& e) {
      check.fail(key("url"), "is not an http(s) URL: " + e.message);
    }
    if (entry.contains("headers"))
      server.headers = check.string_map(entry.at("headers"), key("headers"));
  }
  if (entry.contains("tools")) {
    auto tools = check.strings(entry.at("tools"), key("tools"));
    if (std::find(tools.begin(), tools.end(), "*") == tools.end()) {
      if (tools.empty()) check.fail(key("tools"), "is empty (use [\"*\"] for all tools)");
      server.tools = std::move(tools);
    }
  }
  if (!entry.contains("models"))
    check.fail(key("models"),
               "is missing: name the served models whose requests may use this server's tools "
               "([\"*\"] for every model)");
  server.models = check.strings(entry.at("models"), key("models"));
  if (server.models.empty())
    check.fail(key("models"), "is empty (name models, or [\"*\"] for every model)");
  server.all_models =
      std::find(server.models.begin(), server.models.end(), "*") != server.models.end();
  return server;
}

}  // namespace

bool ServerConfig::offered_to(std::string_view model) const {
  return all_models || std::find(models.begin(), models.end(), model) != models.end();
}

bool ServerConfig::allows(const std::string& tool) const {
  return tools.empty() || std::find(tools.begin(), tools.end(), tool) != tools.end();
}

Config parse_config(const std::string& json_text, const std::string& origin) {
  Checker check(origin);
  json root;
  try {
    root = json::parse(json_text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    check.fail("", std::string("is not valid JSON: ") + e.what());
  }
  if (!root.is_object()) check.fail("", "must be a JSON object");
  check.only_keys(
      root, "",
      {"mcpServers", "max_rounds", "call_timeout_s", "max_concurrent_calls", "connect_timeout_s"});
  if (!root.contains("mcpServers")) check.fail("mcpServers", "is missing");

  Config config;
  const json& servers = check.object(root.at("mcpServers"), "mcpServers");
  for (const auto& [name, entry] : servers.items())
    config.servers.push_back(parse_server(check, name, entry));

  if (root.contains("max_rounds"))
    config.max_rounds = check.positive_int(root.at("max_rounds"), "max_rounds");
  if (root.contains("call_timeout_s"))
    config.call_timeout = check.seconds(root.at("call_timeout_s"), "call_timeout_s");
  if (root.contains("max_concurrent_calls"))
    config.max_concurrent_calls =
        check.positive_int(root.at("max_concurrent_calls"), "max_concurrent_calls");
  if (root.contains("connect_timeout_s"))
    config.connect_timeout = check.seconds(root.at("connect_timeout_s"), "connect_timeout_s");
  return config;
}

Config load_config(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ZEN_ERR_IO, "mcp config " + file.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), file.string());
}

}  // namespace zen::mcp
