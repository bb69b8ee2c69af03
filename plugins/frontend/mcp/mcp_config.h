// The mcp frontend's settings: the "frontend.mcp" section of the serve configuration, checked
// key by key so a typo is an error naming it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config_fields.h"

namespace zen::mcp_server {

// Streamable HTTP: the port's settings (frontend::ListenConfig) and these.
struct McpConfig : frontend::ListenConfig {
  McpConfig() {
    port = 3691;
    max_body_bytes = 4u << 20;
    idle_timeout_s = 300;
  }
  enum class Transport { kHttp, kStdio };
  Transport transport = Transport::kHttp;
  std::string path = "/mcp";
  // Browser origins allowed besides localhost ones (exact, or "*"): DNS-rebinding protection.
  std::vector<std::string> allowed_origins;
  double request_timeout_s = 30;         // the whole request (head and body)
  uint32_t max_sessions = 1024;          // beyond: the least recently used session is ended
  double session_idle_timeout_s = 3600;  // a session unused this long is ended
  // stdio: the descriptor protocol messages are written to (the host may hand over a
  // duplicate of the real stdout after pointing fd 1 at stderr, so stray prints cannot
  // corrupt the stream).
  int output_fd = 1;
};

// Parses the JSON text of the section (empty or "null" = defaults). Throws
// std::invalid_argument naming the key on an unknown key or a bad value.
McpConfig parse_mcp_config(const std::string& json_text);

}  // namespace zen::mcp_server
