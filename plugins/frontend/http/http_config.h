// The http frontend's settings: the "http" section of the serve configuration, checked key by
// key so a typo is an error naming it rather than a silently ignored limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zen::http {

struct HttpConfig {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  uint16_t port = 3690;            // 0 = an ephemeral port, printed at start
  std::optional<std::string> api_key;
  std::vector<std::string> cors_origins;  // exact origins, or "*"
  uint64_t max_body_bytes = 8u << 20;
  uint32_t max_header_bytes = 16u << 10;
  // Seconds (fractions allowed).
  double header_timeout_s = 10;  // the whole request head
  double body_timeout_s = 30;    // the whole body
  double idle_timeout_s = 60;    // keep-alive wait; also a stalled write
  uint32_t io_threads = 2;
  uint32_t max_connections = 512;  // open at once; one more is 503 and closed
  // TLS: PEM certificate chain and private key files; both or neither.
  std::string ssl_cert, ssl_key;
};

// Parses the JSON text of the section (empty text or "null" = all defaults). Throws
// std::invalid_argument naming the key on an unknown key or a bad value.
HttpConfig parse_http_config(const std::string& json_text);

}  // namespace zen::http
