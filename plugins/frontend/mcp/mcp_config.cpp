#include "mcp_config.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace zen::mcp_server {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw std::invalid_argument("'frontend.mcp." + key + "' must be " + what);
}

uint64_t unsigned_in(const json& v, const std::string& key, uint64_t lo, uint64_t hi) {
  const std::string range =
      "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) bad(key, range);
  const uint64_t x = v.get<uint64_t>();
  if (x < lo || x > hi) bad(key, range);
  return x;
}

double seconds(const json& v, const std::string& key) {
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 86400)
    bad(key, "a number of seconds in (0, 86400]");
  return v.get<double>();
}

std::string text(const json& v, const std::string& key) {
  if (!v.is_string() || v.get<std::string>().empty()) bad(key, "a non-empty string");
  return v.get<std::string>();
}

}  // namespace

McpConfig parse_mcp_config(const std::string& json_text) {
  McpConfig c;
  if (json_text.empty()) return c;
  const json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded())
    throw std::invalid_argument("the 'frontend.mcp' config section is not valid JSON");
  if (j.is_null()) return c;
  if (!j.is_object())
    throw std::invalid_argument("the 'frontend.mcp' config section must be an object");

  for (const auto& [key, v] : j.items()) {
    if (key == "transport") {
      const std::string t = v.is_string() ? v.get<std::string>() : "";
      if (t == "http")
        c.transport = McpConfig::Transport::kHttp;
      else if (t == "stdio")
        c.transport = McpConfig::Transport::kStdio;
      else
        bad(key, "\"http\" or \"stdio\"");
    } else if (key == "host") {
      c.host = text(v, key);
    } else if (key == "port") {
      c.port = static_cast<uint16_t>(unsigned_in(v, key, 0, 65535));
    } else if (key == "path") {
      c.path = text(v, key);
      if (c.path.front() != '/') bad(key, "a path starting with '/'");
    } else if (key == "api_key") {
      if (v.is_null())
        c.api_key.reset();
      else
        c.api_key = text(v, key);
    } else if (key == "allowed_origins") {
      if (!v.is_array()) bad(key, "an array of origins");
      c.allowed_origins.clear();
      for (const json& o : v) c.allowed_origins.push_back(text(o, key));
    } else if (key == "max_body_bytes") {
      c.max_body_bytes = unsigned_in(v, key, 1024, uint64_t{1} << 32);
    } else if (key == "max_header_bytes") {
      c.max_header_bytes = static_cast<uint32_t>(unsigned_in(v, key, 1024, 1u << 24));
    } else if (key == "request_timeout_s") {
      c.request_timeout_s = seconds(v, key);
    } else if (key == "idle_timeout_s") {
      c.idle_timeout_s = seconds(v, key);
    } else if (key == "io_threads") {
      c.io_threads = static_cast<uint32_t>(unsigned_in(v, key, 1, 64));
    } else if (key == "max_sessions") {
      c.max_sessions = static_cast<uint32_t>(unsigned_in(v, key, 1, 1u << 20));
    } else if (key == "output_fd") {
      c.output_fd = static_cast<int>(unsigned_in(v, key, 1, 1u << 20));
    } else {
      throw std::invalid_argument(
          "'frontend.mcp." + key +
          "' is not a known key (known: transport, host, port, path, api_key, allowed_origins, "
          "max_body_bytes, max_header_bytes, request_timeout_s, idle_timeout_s, io_threads, "
          "max_sessions, output_fd)");
    }
  }
  return c;
}

}  // namespace zen::mcp_server
