#include "mcp_config.h"

#include "config_fields.h"

namespace zen::mcp_server {

McpConfig parse_mcp_config(const std::string& json_text) {
  const frontend::ConfigSection section("frontend.mcp");
  McpConfig c;
  const nlohmann::json j = section.parse(json_text);  // named: items() does not keep it alive
  for (const auto& [key, v] : j.items()) {
    if (section.listen_key(key, v, c)) continue;
    if (key == "transport") {
      const std::string t = v.is_string() ? v.get<std::string>() : "";
      if (t == "http")
        c.transport = McpConfig::Transport::kHttp;
      else if (t == "stdio")
        c.transport = McpConfig::Transport::kStdio;
      else
        section.bad(key, "\"http\" or \"stdio\"");
    } else if (key == "path") {
      c.path = section.text(v, key);
      if (c.path.front() != '/') section.bad(key, "a path starting with '/'");
    } else if (key == "allowed_origins") {
      if (!v.is_array()) section.bad(key, "an array of origins");
      c.allowed_origins.clear();
      for (const nlohmann::json& o : v) c.allowed_origins.push_back(section.text(o, key));
    } else if (key == "request_timeout_s") {
      c.request_timeout_s = section.seconds(v, key);
    } else if (key == "max_sessions") {
      c.max_sessions = static_cast<uint32_t>(section.unsigned_in(v, key, 1, 1u << 20));
    } else if (key == "session_idle_timeout_s") {
      c.session_idle_timeout_s = section.seconds(v, key);
    } else if (key == "output_fd") {
      c.output_fd = static_cast<int>(section.unsigned_in(v, key, 1, 1u << 20));
    } else {
      section.unknown(key, std::string(frontend::kListenKeys) +
                               ", transport, path, allowed_origins, request_timeout_s, "
                               "max_sessions, session_idle_timeout_s, output_fd");
    }
  }
  section.tls_pair(c.ssl_cert, c.ssl_key);
  return c;
}

}  // namespace zen::mcp_server
