#include "mcp_config.h"

#include "config_fields.h"

namespace zen::mcp_server {

McpConfig parse_mcp_config(const std::string& json_text) {
  const frontend::ConfigSection section("frontend.mcp");
  McpConfig c;
  const nlohmann::json j = section.parse(json_text);  // named: items() does not keep it alive
  for (const auto& [key, v] : j.items()) {
    if (key == "transport") {
      const std::string t = v.is_string() ? v.get<std::string>() : "";
      if (t == "http")
        c.transport = McpConfig::Transport::kHttp;
      else if (t == "stdio")
        c.transport = McpConfig::Transport::kStdio;
      else
        section.bad(key, "\"http\" or \"stdio\"");
    } else if (key == "host") {
      c.host = section.text(v, key);
    } else if (key == "port") {
      c.port = static_cast<uint16_t>(section.unsigned_in(v, key, 0, 65535));
    } else if (key == "path") {
      c.path = section.text(v, key);
      if (c.path.front() != '/') section.bad(key, "a path starting with '/'");
    } else if (key == "api_key") {
      if (v.is_null())
        c.api_key.reset();
      else
        c.api_key = section.text(v, key);
    } else if (key == "allowed_origins") {
      if (!v.is_array()) section.bad(key, "an array of origins");
      c.allowed_origins.clear();
      for (const nlohmann::json& o : v) c.allowed_origins.push_back(section.text(o, key));
    } else if (key == "max_body_bytes") {
      c.max_body_bytes = section.unsigned_in(v, key, 1024, uint64_t{1} << 32);
    } else if (key == "max_header_bytes") {
      c.max_header_bytes = static_cast<uint32_t>(section.unsigned_in(v, key, 1024, 1u << 24));
    } else if (key == "request_timeout_s") {
      c.request_timeout_s = section.seconds(v, key);
    } else if (key == "idle_timeout_s") {
      c.idle_timeout_s = section.seconds(v, key);
    } else if (key == "io_threads") {
      c.io_threads = static_cast<uint32_t>(section.unsigned_in(v, key, 1, 64));
    } else if (key == "max_connections") {
      c.max_connections = static_cast<uint32_t>(section.unsigned_in(v, key, 1, 1u << 20));
    } else if (key == "max_sessions") {
      c.max_sessions = static_cast<uint32_t>(section.unsigned_in(v, key, 1, 1u << 20));
    } else if (key == "session_idle_timeout_s") {
      c.session_idle_timeout_s = section.seconds(v, key);
    } else if (key == "ssl_cert") {
      c.ssl_cert = section.text(v, key);
    } else if (key == "ssl_key") {
      c.ssl_key = section.text(v, key);
    } else if (key == "output_fd") {
      c.output_fd = static_cast<int>(section.unsigned_in(v, key, 1, 1u << 20));
    } else {
      section.unknown(
          key,
          "transport, host, port, path, api_key, allowed_origins, "
          "max_body_bytes, max_header_bytes, request_timeout_s, idle_timeout_s, io_threads, "
          "max_connections, max_sessions, session_idle_timeout_s, ssl_cert, ssl_key, output_fd");
    }
  }
  section.tls_pair(c.ssl_cert, c.ssl_key);
  return c;
}

}  // namespace zen::mcp_server
