// The mcp frontend's settings: the "frontend.mcp" section of the serve configuration, checked
// key by key so a typo is an error naming it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zen::mcp_server {

struct McpConfig {
  enum class Transport { kHttp, kStdio };
  Transport transport = Transport::kHttp;
  // Streamable HTTP.
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  uint16_t port = 3691;            // 0 = an ephemeral port
  std::string path = "/mcp";
  std::optional<std::string> api_key;
  // Browser origins allowed besides localhost ones (exact, or "*"): DNS-rebinding protection.
  std::vector<std::string> allowed_origins;
  uint64_t max_body_bytes = 4u << 20;
  uint32_t max_header_bytes = 16u << 10;
  double request_timeout_s = 30;  // the whole request (head and body)
  double idle_timeout_s = 300;    // keep-alive wait; also a stalled write
  uint32_t io_threads = 2;
  uint32_t max_connections = 256;        // open at once; one more is 503 and closed
  uint32_t max_sessions = 1024;          // beyond: the least recently used session is ended
  double session_idle_timeout_s = 3600;  // a session unused this long is ended
  // TLS (as frontend.http's): PEM certificate chain and private key files; both or neither.
  std::string ssl_cert, ssl_key;
  // stdio: the descriptor protocol messages are written to (the host may hand over a
  // duplicate of the real stdout after pointing fd 1 at stderr, so stray prints cannot
  // corrupt the stream).
  int output_fd = 1;
};

// Parses the JSON text of the section (empty or "null" = defaults). Throws
// std::invalid_argument naming the key on an unknown key or a bad value.
McpConfig parse_mcp_config(const std::string& json_text);

}  // namespace zen::mcp_server
